"""The `videodenoise` command line, thin over the library."""
