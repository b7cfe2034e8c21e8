"""`python -m fabriclint`: the same command as the `fabriclint` script (srun runs it this way,
with the interpreter of the running fabriclint)."""

from fabriclint.cli import main

if __name__ == "__main__":
    main()
