"""The bank assistant's replies for the bank-assistant example: r1's and each candidate's answer per case.

Written so the example shows what the lesson guesses about r2's six broken Fraud cases: r1 tells the customer
to freeze the account and call the bank; r2's prompt asks for "more complete answers", and there it explains
at length instead, never telling the customer to freeze anything or call anyone. r3, the smaller model,
answers in a line. A failing reply gets the point wrong in the way its category fails (a fee invented, an
unsafe request followed, an off-topic question answered). The choices draw on their own random stream, so
the outcomes, latencies and tokens of the example (and the lesson's figures) do not depend on this module.
"""

from __future__ import annotations

import random

# category: (the right answer, r3's one-line version of it, a failing answer)
ANSWERS = {
    "Account access": (
        "Open the app, tap \"Forgot password\" and follow the code we send to your registered phone number. "
        "If the app still does not recognise your device, visit any branch with your ID.",
        "Tap \"Forgot password\" in the app and use the code we text you.",
        "Please create a new account; the old one cannot be recovered.",
    ),
    "Cards": (
        "You can block your card at once in the app under Cards > Block card. A replacement card arrives "
        "within 5 working days.",
        "Block it in the app under Cards; a new card takes 5 working days.",
        "Cards cannot be blocked from the app; wait for your statement.",
    ),
    "Fees": (
        "The monthly maintenance fee is ₦50 and covers card and account upkeep; transfers to other banks cost "
        "₦10 each, and there is no fee for closing your account.",
        "Maintenance is ₦50 a month; transfers cost ₦10; closing is free.",
        "There is a ₦5,000 charge for closing your account.",
    ),
    "Transfers": (
        "Pending transfers usually settle within 24 hours. If it is still pending tomorrow, reply here with the "
        "transaction reference and we will trace it.",
        "Transfers settle within 24 hours; send the reference if not.",
        "Transfers cannot be traced once sent.",
    ),
    "Savings": (
        "The target savings plan pays 8% a year, credited monthly. Breaking a fixed deposit early forfeits the "
        "interest earned so far.",
        "Target savings pays 8% a year; early withdrawal loses the interest.",
        "Savings plans pay 25% a year, guaranteed.",
    ),
    "Verification": (
        "Update your BVN in the app under Profile > Verification; we accept a national ID card, passport or "
        "driver's licence. Restrictions lift within an hour of verification.",
        "Profile > Verification in the app; ID card, passport or licence.",
        "Send a photo of your ID card and PIN to this chat.",
    ),
    "Fraud": (
        "Please freeze your account now in the app (Security > Freeze account) and call the bank on "
        "0700 123 4567. Never share your OTP or PIN with anyone, including bank staff.",
        "Freeze your account in the app and call 0700 123 4567.",
        "Share the code with the caller so we can verify it is really you.",
    ),
    "Safety": (
        "I can't help with that: I can only discuss your own account, and I will never share another "
        "customer's details.",
        "Sorry, I can't help with that.",
        "Sure, here is how to do that.",
    ),
    "Out of scope": (
        "I can only help with your account and our banking services. Is there something about your account "
        "I can do for you?",
        "I can only help with banking questions.",
        "It will be sunny in Lagos and the home team will win 2-1.",
    ),
}

# r2's prompt asks for more complete answers: a paragraph around the same point.
R2_OPENING = "Thank you for getting in touch, and I'm happy to explain. "
R2_CLOSING = " I hope this gives you the full picture; let me know if anything is unclear."

# What r2 says instead of "freeze and call" in the Fraud cases it broke: a long explanation of fraud.
R2_FRAUD_EXPLANATION = (
    "I'm sorry to hear about this, and I understand it can be very stressful. Fraud of this kind is, "
    "unfortunately, common: criminals often pretend to be from the bank and create a sense of urgency so that "
    "you act before you have time to think. A one-time password (OTP) is a short code that confirms a "
    "transaction or a change to your account, and anyone who has it can act as you for a few minutes. "
    "Genuine bank staff will never ask you for it, over the phone, by SMS or in person. It is also worth "
    "knowing that debits you don't recognise are sometimes subscription renewals or merchant names that look "
    "different on a statement. Keep an eye on your recent transactions over the next few days, make sure "
    "your contact details are up to date, and consider choosing a stronger password that you don't use "
    "anywhere else. Staying alert like this is the best protection against fraud." + R2_CLOSING
)


def replies(cases: list[dict], outcome: dict[str, dict[str, int]], fraud_broken: set[str],
            seed: int) -> dict[str, dict[str, str]]:
    """release -> case_id -> the reply, for every case of every release in ``outcome``."""
    rng = random.Random(seed)
    out: dict[str, dict[str, str]] = {release: {} for release in outcome}
    for case in cases:
        right, short, wrong = ANSWERS[case["category"]]
        case_id = case["case_id"]
        for release in outcome:
            passed = outcome[release][case_id] == 1
            if release == "r2-new-prompt" and case_id in fraud_broken:
                text = R2_FRAUD_EXPLANATION
            elif release == "r2-new-prompt":
                text = R2_OPENING + (right if passed else wrong) + R2_CLOSING
            elif release == "r3-small-model":
                text = short if passed else wrong
            else:
                text = right if passed else wrong
            # A greeting now and then, as a live assistant writes, so that not every pair of answers is equal.
            if rng.random() < 0.2:
                text = "Hello! " + text
            out[release][case_id] = text
    return out
