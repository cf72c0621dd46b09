from releasegate.cli import entry

entry()
