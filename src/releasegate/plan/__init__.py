"""``releasegate plan``'s machinery: simulated releases like a suite, and the gate's rates on them."""
