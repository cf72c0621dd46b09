"""System kind ``openai``: an OpenAI-compatible ``/chat/completions`` endpoint (one row of SYSTEM_KINDS).

The key is read from the environment once, when the run starts (a missing variable stops the run before the
first call), sent as ``Authorization: Bearer``, and never stored or hashed. Each attempt has one timeout
covering connect, send and the whole body. Streaming is refused at the config check: the whole reply is read
and scored, and a streamed one would be thrown away as malformed, then paid for again.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from releasegate.errors import RunConfigError
from releasegate.run.calls import AttemptError, Reply, Request, http_error, render
from releasegate.run.http import HttpClient
from releasegate.run.spec import SystemConfig, canonical_numbers, text, text_or_file, template_fields

_json_text = json.encoder.encode_basestring  # a text's JSON string, as json.dumps(ensure_ascii=False) writes it
KEYS = frozenset({"base_url", "model", "api_key_env", "system_prompt", "system_prompt_file", "user_template",
                  "user_template_file", "params", "seed"})
SEED_POLICIES = ("run", "none")
# Request fields releasegate sets itself, or whose replies it cannot read: refused in params.
RESERVED_PARAMS = {"model": "model is its own key", "messages": "the messages come from the prompts",
                   "stream": "streamed replies are not supported (the whole reply is read and scored)",
                   "stream_options": "streamed replies are not supported"}


def parse_spec(raw: Mapping[str, Any], base_dir: Path, where: str) -> dict[str, Any]:
    base_url = text(raw, "base_url", None, where)
    if not base_url.startswith(("http://", "https://")):
        raise RunConfigError(f"{where}: base_url must start with http:// or https://, got {base_url!r}")
    params = raw.get("params", {})
    if not isinstance(params, Mapping):
        raise RunConfigError(f"{where}: params must be a table, e.g. params = {{ temperature = 0.7 }}")
    for name, why in RESERVED_PARAMS.items():
        if name in params and not (name == "stream" and params[name] is False):
            raise RunConfigError(f"{where}: params.{name} is refused: {why}")
    seed = raw.get("seed", "run")
    if seed not in SEED_POLICIES:
        raise RunConfigError(f"{where}: seed must be one of {', '.join(SEED_POLICIES)}, got {seed!r}")
    key_env = raw.get("api_key_env")
    if key_env is not None and (not isinstance(key_env, str) or not key_env.strip()):
        raise RunConfigError(f"{where}: api_key_env must name an environment variable, got {key_env!r}")
    user_template = text_or_file(raw, "user_template", base_dir, where, "{input}")
    return {
        "base_url": base_url.rstrip("/"),
        "model": text(raw, "model", None, where),
        "system_prompt": text_or_file(raw, "system_prompt", base_dir, where, ""),
        "user_template": user_template,
        "params": {k: v for k, v in params.items() if k != "stream"},
        "seed": seed,
        "api_key_env": key_env,
        "fields": template_fields(user_template, where, "user_template"),
    }


def hashed(spec: Mapping[str, Any]) -> dict[str, Any]:
    """What shapes the answers: never the key's variable, and ``0`` and ``0.0`` alike."""
    kept = {k: v for k, v in spec.items() if k not in ("api_key_env", "fields")}
    kept["params"] = canonical_numbers(dict(spec["params"]))
    return kept


def endpoint(spec: Mapping[str, Any]) -> str:
    return f"{spec['base_url']} {spec['model']}"


def make_caller(system: SystemConfig, context: Any) -> OpenAIChat:
    key_env = system.spec.get("api_key_env")
    return OpenAIChat(system, HttpClient(context.max_connections(system), context.max_response_bytes),
                      context.environ.get(key_env) if key_env else None)


class OpenAIChat:
    """POST {base_url}/chat/completions; ``client`` is anything with ``post(url, body, headers)`` and
    ``close()`` (the benchmark compares HTTP clients through it)."""

    def __init__(self, system: SystemConfig, client: Any, key: str | None = None) -> None:
        self.system, self.client = system, client
        spec = system.spec
        self.url = f"{spec['base_url']}/chat/completions"
        self.headers = {"Content-Type": "application/json"}
        if key:
            self.headers["Authorization"] = f"Bearer {key}"
        self.prefix = [{"role": "system", "content": spec["system_prompt"]}] if spec["system_prompt"] else []
        self.parts = _body_parts(spec, self.prefix)

    async def close(self) -> None:
        await self.client.close()

    async def __call__(self, request: Request, timeout_s: float) -> Reply:
        spec = self.system.spec
        user = request.prompt if request.prompt is not None else render(spec["user_template"], request.case)
        seeded = spec["seed"] == "run" and request.prompt is None
        if self.parts is not None:
            head, tail = self.parts
            seed = f', "seed": {request.run}' if seeded else ""  # an int's JSON is its repr
            data = f"{head}{_json_text(user)}{tail}{seed}}}".encode()
        else:
            body: dict[str, Any] = {"model": spec["model"],
                                    "messages": [*self.prefix, {"role": "user", "content": user}], **spec["params"]}
            if seeded:
                body["seed"] = request.run
            data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        try:
            async with asyncio.timeout(timeout_s):
                reply = await self.client.post(self.url, data, self.headers)
        except TimeoutError:
            raise AttemptError("timeout", f"no whole reply within {timeout_s:g} s (connect, send and body "
                                          "together)") from None
        if reply.status != 200:
            raise http_error(reply.status, reply.body[:2000].decode("utf-8", "replace"), reply.retry_after)
        return parse_chat_reply(reply.body)


def _body_parts(spec: Mapping[str, Any], prefix: list[dict[str, str]]) -> tuple[str, str] | None:
    """The request body's JSON before and after the user's message (the seed, if sent, goes last): written once
    per system, not encoded whole per call, the bytes those of ``json.dumps(body, ensure_ascii=False)``. None when
    ``params`` names a seed (the run's seed then takes that key's place in the body)."""
    params = spec["params"]
    if "seed" in params:
        return None
    messages = "".join(json.dumps(m, ensure_ascii=False) + ", " for m in prefix)
    model = json.dumps(spec["model"], ensure_ascii=False)
    head = f'{{"model": {model}, "messages": [{messages}{{"role": "user", "content": '
    tail = "}]" + "".join(f", {json.dumps(k, ensure_ascii=False)}: {json.dumps(v, ensure_ascii=False)}"
                          for k, v in params.items())
    return head, tail


def parse_chat_reply(content: bytes) -> Reply:
    """The first choice's message; anything else is a malformed reply (transient: a retry may succeed)."""
    try:
        data = json.loads(content)
        choice = data["choices"][0]
        output = choice["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise AttemptError("malformed", f"malformed reply: {content[:120]!r}") from None
    if not isinstance(output, str):
        raise AttemptError("malformed", "malformed reply: the message has no text content")
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    return Reply(output=output, input_tokens=_count(usage.get("prompt_tokens")),
                 output_tokens=_count(usage.get("completion_tokens")), model=_short(data.get("model")),
                 fingerprint=_short(data.get("system_fingerprint")), finish_reason=_short(choice.get("finish_reason")))


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**53 else None


def _short(value: Any) -> str | None:
    return value[:200] if isinstance(value, str) else None
