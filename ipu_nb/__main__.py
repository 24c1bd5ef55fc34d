"""`python -m ipu_nb` runs the `ipu-nb` command line."""

from ._cli import main

raise SystemExit(main())
