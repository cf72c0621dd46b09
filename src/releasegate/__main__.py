from releasegate.cli import main

main()
