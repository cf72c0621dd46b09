/* The case explorer of the HTML release note (render/explorer.py builds its data, render/explorer_page.py
   places it). It reads the rows from the page's data element, filters and sorts them as
   render/explorer_query.py does, and builds every element with textContent: no text of a case is ever parsed
   as HTML. It asks for nothing over the network and evaluates no code. */
(function () {
  "use strict";
  var PAGE = 100;  // rows drawn at a time; "Show more" draws the next
  var PAUSE = 40;  // ms of quiet typing before the list is filtered again
  var root = document.getElementById("explorer");
  var source = document.getElementById("explorer-data");
  if (!root || !source) { return; }
  var ui = document.getElementById("explorer-ui");
  var notice = document.getElementById("explorer-noscript");
  var search = document.getElementById("x-search");
  var selects = {
    candidate: document.getElementById("x-candidate"),
    category: document.getElementById("x-category"),
    change: document.getElementById("x-change"),
    metric: document.getElementById("x-metric"),
    sort: document.getElementById("x-sort")
  };
  var list = document.getElementById("x-list");
  var count = document.getElementById("x-count");
  var more = document.getElementById("x-more");
  // JavaScript's \s spelled out, as render/explorer_query.py splits the search.
  var SPACE = /[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+/;
  var data, F, S, rows, matched = [], shownUpTo = 0;

  function inflate(text) {
    var binary = atob(text.replace(/\s+/g, ""));
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) { bytes[i] = binary.charCodeAt(i); }
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text();
  }

  function load() {
    if (source.type === "application/json") { return Promise.resolve(JSON.parse(source.textContent)); }
    if (typeof DecompressionStream !== "function") {
      return Promise.reject(new Error("this browser cannot decompress the explorer's data"));
    }
    return inflate(source.textContent).then(JSON.parse);
  }

  function text(i) { return i >= 0 ? S[i] : ""; }

  function haystack(r) {
    var parts = [text(r[F.case_id]), r[F.category] >= 0 ? data.categories[r[F.category]] : ""];
    r[F.metadata].forEach(function (i) { parts.push(text(i)); });
    r[F.answers].forEach(function (a) { if (a) { parts.push(text(a[0]), text(a[1])); } });
    return parts.join("\n").toLowerCase();
  }

  function state() {
    var out = {q: search.value};
    Object.keys(selects).forEach(function (k) { if (selects[k]) { out[k] = selects[k].value; } });
    return out;
  }

  function matches(st, words, row) {
    var r = row.r;
    if (st.candidate && data.candidates[r[F.candidate]] !== st.candidate) { return false; }
    if (st.metric && data.metrics[r[F.metric]].name !== st.metric) { return false; }
    if (st.change && data.changes[r[F.change]] !== st.change) { return false; }
    if (st.category && (r[F.category] < 0 || data.categories[r[F.category]] !== st.category)) { return false; }
    for (var k = 0; k < words.length; k++) { if (row.hay.indexOf(words[k]) < 0) { return false; } }
    return true;
  }

  function sorter(sort) {
    if (sort === "category") {
      var last = data.categories.length;
      return function (a, b) {
        var x = a.r[F.category] < 0 ? last : a.r[F.category], y = b.r[F.category] < 0 ? last : b.r[F.category];
        return x - y || a.i - b.i;
      };
    }
    var field = {score: F.score_change, latency: F.latency_change, cost: F.cost_change}[sort];
    var sign = sort === "score" ? 1 : -1;
    return function (a, b) {
      var x = a.r[field], y = b.r[field];
      if (x === null || y === null) { return (x === null) - (y === null) || a.i - b.i; }
      return sign * (x - y) || a.i - b.i;
    };
  }

  function el(tag, cls, content) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (content !== undefined) { node.textContent = content; }
    return node;
  }

  /* The word diff of render/answers.py, the same method: difflib's SequenceMatcher (no junk heuristic) over
     words, each word with the white space after it (Python's str.isspace set), ported from CPython's
     find_longest_match, get_matching_blocks and get_opcodes; matches shorter than min_match words between two
     changes count as changed; texts longer than data.diff.words words are not compared, and answers whose
     ratio is below data.diff.alike are shown plain. */
  var WS = "\\t\\n\\v\\f\\r \\x1c-\\x1f\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
  var WORDS = new RegExp("[^" + WS + "]+[" + WS + "]*|[" + WS + "]+", "g");

  function blocks(a, b) {
    var b2j = new Map();
    b.forEach(function (word, j) { if (!b2j.has(word)) { b2j.set(word, []); } b2j.get(word).push(j); });
    function longest(alo, ahi, blo, bhi) {
      var besti = alo, bestj = blo, bestsize = 0, j2len = new Map();
      for (var i = alo; i < ahi; i++) {
        var next = new Map(), at = b2j.get(a[i]) || [];
        for (var n = 0; n < at.length; n++) {
          var j = at[n];
          if (j < blo) { continue; }
          if (j >= bhi) { break; }
          var k = (j2len.get(j - 1) || 0) + 1;
          next.set(j, k);
          if (k > bestsize) { besti = i - k + 1; bestj = j - k + 1; bestsize = k; }
        }
        j2len = next;
      }
      while (besti > alo && bestj > blo && a[besti - 1] === b[bestj - 1]) { besti--; bestj--; bestsize++; }
      while (besti + bestsize < ahi && bestj + bestsize < bhi && a[besti + bestsize] === b[bestj + bestsize]) {
        bestsize++;
      }
      return [besti, bestj, bestsize];
    }
    var queue = [[0, a.length, 0, b.length]], found = [];
    while (queue.length) {
      var q = queue.pop(), m = longest(q[0], q[1], q[2], q[3]);
      if (m[2]) {
        found.push(m);
        if (q[0] < m[0] && q[2] < m[1]) { queue.push([q[0], m[0], q[2], m[1]]); }
        if (m[0] + m[2] < q[1] && m[1] + m[2] < q[3]) { queue.push([m[0] + m[2], q[1], m[1] + m[2], q[3]]); }
      }
    }
    found.sort(function (x, y) { return x[0] - y[0] || x[1] - y[1]; });
    var out = [], i1 = 0, j1 = 0, k1 = 0;
    found.forEach(function (m) {
      if (i1 + k1 === m[0] && j1 + k1 === m[1]) { k1 += m[2]; } else {
        if (k1) { out.push([i1, j1, k1]); }
        i1 = m[0]; j1 = m[1]; k1 = m[2];
      }
    });
    if (k1) { out.push([i1, j1, k1]); }
    out.push([a.length, b.length, 0]);
    return out;
  }

  function opcodes(matched) {
    var i = 0, j = 0, out = [];
    matched.forEach(function (m) {
      var tag = i < m[0] && j < m[1] ? "replace" : i < m[0] ? "delete" : j < m[1] ? "insert" : "";
      if (tag) { out.push([tag, i, m[0], j, m[1]]); }
      i = m[0] + m[2]; j = m[1] + m[2];
      if (m[2]) { out.push(["equal", m[0], i, m[1], j]); }
    });
    return out;
  }

  function absorbed(codes) {
    var merged = [];
    codes.forEach(function (c, k) {
      var op = c[0];
      if (op === "equal" && k > 0 && k < codes.length - 1 && c[2] - c[1] < data.diff.min_match) { op = "replace"; }
      var last = merged[merged.length - 1];
      if (op !== "equal" && last && last[0] !== "equal") {
        last[0] = "replace"; last[2] = c[2]; last[4] = c[4];
      } else {
        merged.push([op, c[1], c[2], c[3], c[4]]);
      }
    });
    return merged;
  }

  function diff(base, cand) {
    var a = base.match(WORDS) || [], b = cand.match(WORDS) || [];
    var compared = a.length <= data.diff.words && b.length <= data.diff.words;
    var plain = [[[false, a.join("")]], [[false, b.join("")]], compared];
    if (!compared || !a.length || !b.length || base === cand) { return plain; }
    var matched = blocks(a, b), same = 0;
    matched.forEach(function (m) { same += m[2]; });
    if (2 * same / (a.length + b.length) < data.diff.alike) { return plain; }
    var left = [], right = [];
    absorbed(opcodes(matched)).forEach(function (c) {
      if (c[0] === "equal") {
        left.push([false, a.slice(c[1], c[2]).join("")]);
        right.push([false, b.slice(c[3], c[4]).join("")]);
        return;
      }
      if (c[2] > c[1]) { left.push([true, a.slice(c[1], c[2]).join("")]); }
      if (c[4] > c[3]) { right.push([true, b.slice(c[3], c[4]).join("")]); }
    });
    return [left, right, true];
  }

  function marked(parent, runs, tag) {
    runs.forEach(function (run) {
      if (!run[1]) { return; }
      parent.appendChild(run[0] ? el(tag, "", run[1]) : document.createTextNode(run[1]));
    });
  }

  function body(r) {
    var box = el("div", "x-body");
    var meta = el("dl", "x-meta");
    var names = data.columns.meta;
    var order = [data.columns.input, data.columns.reference].filter(Boolean);
    names.forEach(function (n) { if (order.indexOf(n) < 0) { order.push(n); } });
    order.forEach(function (n) {
      var i = r[F.metadata][names.indexOf(n)];
      if (i < 0 || !text(i)) { return; }
      var label = n === data.columns.input ? "Input" : n === data.columns.reference ? "Reference (" + n + ")" : n;
      meta.appendChild(el("dt", "", label));
      meta.appendChild(el("dd", n === data.columns.input || n === data.columns.reference ? "x-long" : "", text(i)));
    });
    if (meta.childNodes.length) { box.appendChild(meta); }
    var candidate = data.candidates[r[F.candidate]];
    r[F.answers].forEach(function (a, k) {
      if (!a) { return; }
      var column = data.columns.texts[k];
      var pair = el("div", "x-pair");
      var runs = diff(text(a[0]), text(a[1]));
      [[data.baseline, runs[0], "del"], [candidate, runs[1], "ins"]].forEach(function (side) {
        var cell = el("div", "x-side");
        var head = el("h4", "");
        head.appendChild(el("span", "x-col", column));
        head.appendChild(document.createTextNode(" on "));
        head.appendChild(el("span", "name", side[0]));
        cell.appendChild(head);
        var p = el("p", "x-text");
        marked(p, side[1], side[2]);
        cell.appendChild(p);
        pair.appendChild(cell);
      });
      box.appendChild(pair);
      if (!runs[2]) { box.appendChild(el("p", "muted", "Too long to mark word by word: both shown whole.")); }
    });
    if (r[F.answers].some(Boolean)) {
      var key = el("p", "footnote answers-key");
      key.appendChild(document.createTextNode("Struck words are only in " + data.baseline + "'s answer, "));
      key.appendChild(el("ins", "", "marked"));
      key.appendChild(document.createTextNode(" words only in " + candidate + "'s; answers that are mostly different are shown plain."));
      box.appendChild(key);
    }
    return box;
  }

  function card(row) {
    var r = row.r;
    var item = el("details", "x-case x-" + data.changes[r[F.change]]);
    item.setAttribute("data-case-id", text(r[F.case_id]));
    item.setAttribute("data-candidate", data.candidates[r[F.candidate]]);
    if (data.metrics.length > 1) { item.setAttribute("data-metric", data.metrics[r[F.metric]].name); }
    var head = el("summary", "");
    head.appendChild(el("span", "x-id", text(r[F.case_id])));
    head.appendChild(el("span", "x-change", data.changes[r[F.change]]));
    head.appendChild(el("span", "x-cand name", data.candidates[r[F.candidate]] +
      (data.metrics.length > 1 ? " · " + data.metrics[r[F.metric]].name : "")));
    var category = el("span", "x-cat", r[F.category] >= 0 ? data.categories[r[F.category]] : "");
    if (r[F.critical]) { category.appendChild(document.createTextNode(" ")); category.appendChild(el("span", "tag crit", "critical")); }
    head.appendChild(category);
    head.appendChild(el("span", "x-out", text(r[F.baseline_outcome]) + " → " + text(r[F.candidate_outcome]) +
      (data.metrics[r[F.metric]].binary || !text(r[F.score_change_text]) ? "" : " (" + text(r[F.score_change_text]) + ")")));
    var costs = [text(r[F.latency_change_text]), text(r[F.cost_change_text])].filter(Boolean).join(" · ");
    head.appendChild(el("span", "x-costs", costs));
    var input = data.columns.input ? r[F.metadata][data.columns.meta.indexOf(data.columns.input)] : -1;
    head.appendChild(el("span", "x-input", text(input)));
    item.appendChild(head);
    item.addEventListener("toggle", function () {
      if (item.open && !item.querySelector(".x-body")) { item.appendChild(body(r)); }
    });
    return item;
  }

  function showMore() {
    var end = Math.min(matched.length, shownUpTo + PAGE);
    var batch = document.createDocumentFragment();
    for (var k = shownUpTo; k < end; k++) { batch.appendChild(card(matched[k])); }
    list.appendChild(batch);
    shownUpTo = end;
    more.hidden = shownUpTo >= matched.length;
    more.textContent = "Show " + Math.min(PAGE, matched.length - shownUpTo) + " more of " +
      (matched.length - shownUpTo).toLocaleString("en") + " left";
  }

  function update(record) {
    list.removeAttribute("data-pending");
    var st = state();
    var words = st.q.toLowerCase().split(SPACE).filter(Boolean);
    matched = rows.filter(function (row) { return matches(st, words, row); });
    if (st.sort && st.sort !== "note") { matched.sort(sorter(st.sort)); }
    var distinct = matched.length;
    if (data.candidates.length > 1 || data.metrics.length > 1) {
      var cases = new Set();
      matched.forEach(function (row) { cases.add(row.r[F.case_id]); });  // the id's index in the string table
      distinct = cases.size;
    }
    count.textContent = matched.length.toLocaleString("en") + " of " + rows.length.toLocaleString("en") +
      " rows match" + (distinct !== matched.length ? ": " + distinct.toLocaleString("en") +
      " cases, some on more than one candidate" + (data.metrics.length > 1 ? " or metric" : "") : "") + ".";
    list.textContent = "";
    shownUpTo = 0;
    showMore();
    if (record) { remember(st); }
  }

  function remember(st) {
    var params = new URLSearchParams();
    Object.keys(st).forEach(function (k) { if (st[k] && !(k === "sort" && st[k] === "note")) { params.set(k, st[k]); } });
    var hash = "#explorer" + (params.toString() ? "?" + params.toString() : "");
    try { history.replaceState(null, "", hash); } catch (e) { /* a page without history keeps its view */ }
  }

  function recall() {
    var hash = location.hash;
    if (hash.indexOf("#explorer?") !== 0) { return false; }
    var params = new URLSearchParams(hash.slice("#explorer?".length));
    search.value = params.get("q") || "";
    Object.keys(selects).forEach(function (k) {
      var select = selects[k];
      if (!select) { return; }
      var wanted = params.get(k) || (k === "sort" ? "note" : "");
      var known = Array.prototype.some.call(select.options, function (o) { return o.value === wanted; });
      select.value = known ? wanted : select.options[0].value;
    });
    return true;
  }

  function cards() { return Array.prototype.slice.call(list.querySelectorAll("details.x-case > summary")); }

  function move(step) {
    var all = cards();
    var at = all.indexOf(document.activeElement);
    var next = at < 0 ? (step > 0 ? 0 : all.length - 1) : at + step;
    if (next >= all.length && shownUpTo < matched.length) { showMore(); all = cards(); }
    if (next >= 0 && next < all.length) {
      all[next].focus();
      all[next].scrollIntoView({block: "nearest"});
    }
  }

  function typing(target) {
    return target && (target.isContentEditable || /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName));
  }

  function fill(select, values) {
    if (!select) { return; }
    values.forEach(function (value) {
      var option = document.createElement("option");
      option.value = value;
      option.textContent = value;
      select.appendChild(option);
    });
  }

  function start(loaded) {
    data = loaded;
    F = {};
    data.fields.forEach(function (name, k) { F[name] = k; });
    S = data.strings;
    rows = data.rows.map(function (r, i) { return {i: i, r: r, hay: haystack(r)}; });
    fill(selects.candidate, data.candidates);
    fill(selects.category, data.categories);
    // Only the changes some row has: "errored" in a note without errors, or "unchanged" past the cases whose
    // unchanged ones are listed, would only ever match nothing.
    var present = {};
    data.rows.forEach(function (r) { present[r[F.change]] = true; });
    fill(selects.change, data.changes.filter(function (c, k) { return present[k]; }));
    fill(selects.metric, data.metrics.map(function (m) { return m.name; }));
    notice.hidden = true;
    ui.hidden = false;
    var linked = recall();
    var timer = null;
    search.addEventListener("input", function () {
      clearTimeout(timer);
      list.setAttribute("data-pending", "true");  // until the typing pauses (the tests wait for it too)
      timer = setTimeout(function () { update(true); }, PAUSE);
    });
    root.querySelector("form").addEventListener("submit", function (e) { e.preventDefault(); update(true); });
    Object.keys(selects).forEach(function (k) {
      if (selects[k]) { selects[k].addEventListener("change", function () { update(true); }); }
    });
    more.addEventListener("click", showMore);
    document.addEventListener("keydown", function (e) {
      if (e.ctrlKey || e.metaKey || e.altKey) { return; }
      if (e.key === "/" && !typing(e.target)) { e.preventDefault(); search.focus(); search.select(); return; }
      if ((e.key === "j" || e.key === "k") && !typing(e.target)) { e.preventDefault(); move(e.key === "j" ? 1 : -1); }
    });
    window.addEventListener("hashchange", function () { if (recall()) { update(false); } });
    update(false);
    root.setAttribute("data-ready", "true");
    if (linked) { root.scrollIntoView(); }
  }

  load().then(start, function (err) {
    notice.textContent = "The case explorer could not read its data (" + err.message + "); the case lists above and the JSON report hold the same cases.";
  });
})();
