"""``python -m anchormem ...`` runs the ``anchormem`` command line."""

from .cli import main

if __name__ == "__main__":
    main()
