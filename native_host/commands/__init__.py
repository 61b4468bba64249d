"""One module per `fantasma` sub-command; each defines `register(subparsers)`."""
