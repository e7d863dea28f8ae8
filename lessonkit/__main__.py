"""The `lessonkit` command (also `python -m lessonkit`): `lessonkit doctor` checks this machine (lesson 01)."""

from __future__ import annotations

import argparse
import sys
import time


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and run the chosen command; return its exit status (lesson 01)."""
    started = time.perf_counter()
    from lessonkit import doctor  # imports torch: only once a command runs

    parser = argparse.ArgumentParser(
        prog="lessonkit",
        description="Command-line helpers of the GPU Setup & Cloud course.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    doctor_parser = commands.add_parser(
        "doctor",
        help="check this machine: device, nvidia-smi, a CPU vs GPU matmul and what fits in memory",
        description=doctor.__doc__.splitlines()[0].replace("`", ""),
        epilog="Exit status: "
        + "; ".join(f"{status} when {meaning}" for status, meaning in doctor.EXIT_STATUSES.items())
        + ".",
    )
    doctor.add_arguments(doctor_parser)
    args = parser.parse_args(argv)
    if args.command == "doctor":
        return doctor.run(args, doctor_parser, started=started)
    parser.error(f"unknown command {args.command!r}")  # pragma: no cover (argparse rejects it first)
    return 2


if __name__ == "__main__":
    sys.exit(main())
