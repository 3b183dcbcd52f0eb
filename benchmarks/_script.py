"""How a benchmark script ends, as `videodenoise`'s CLI does: main's exit status, or, for an input the package
refuses (a wrong or corrupt checkpoint, a video it cannot read), that error's one line and status 1, no traceback.

    if __name__ == "__main__":
        run_main(main)
"""

from __future__ import annotations

from collections.abc import Callable

from videodenoise.errors import VideodenoiseError


def run_main(main: Callable[[], int | None]) -> None:
    try:
        status = main()
    except VideodenoiseError as error:
        raise SystemExit(f"error: {error}") from None
    raise SystemExit(status)
