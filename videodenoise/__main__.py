from videodenoise.cli.app import main

main()
