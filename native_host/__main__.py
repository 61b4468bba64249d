"""`python -m native_host`: the native-messaging host (what the installed launcher runs)."""

import sys

from native_host.host import main

sys.exit(main())
