import sys

from kwx.cli import main

sys.exit(main())
