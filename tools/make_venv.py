"""Create .venv, or repair it, and install requirements.txt into it (make setup; make lab and make test call it).

    python3 tools/make_venv.py            # create .venv (or repair it) and install everything, with progress
    python3 tools/make_venv.py --check    # exit 0 when .venv is complete; otherwise say why and exit 1

It runs under the Python that is to create the environment (make's PYTHON, python3 by default), and
checks that Python's version before it creates anything: requirements.txt's pins need Python 3.11 or
newer. That Python may be old (stock macOS has 3.9), so this file runs on Python 3.6 and newer
(tests/matrix/test_setup.py runs it with 3.9; the Makefile turns away anything older before running it).

An existing .venv is used as it is when it is complete: its python runs, is new enough, has pip, and
the stamp .venv/.installed says an install finished there. Anything less (a setup interrupted with
Ctrl-C, `python3 -m venv --without-pip .venv`, a .venv made by an older Python, a python whose base
install was removed) is deleted and built afresh; no `make clean` needed. A complete .venv whose stamp
is older than requirements.txt is updated in place.
"""

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import time

NEEDS = (3, 11)
# The pins in requirements.txt whose Requires-Python is >=3.11 (tests/matrix/test_setup.py checks this list
# and that no pin needs more).
NEEDED_BY = ("numpy==2.4.6", "matplotlib==3.11.2", "ipykernel==7.4.0")
SUGGESTED = "3.12"
STAMP = ".installed"
# What `python3 -m venv` makes before it writes pyvenv.cfg: a folder holding only these is a half-made venv.
VENV_SKELETON = {"bin", "include", "lib", "lib64", "share", "pyvenv.cfg", STAMP}
FONT_CACHE = "import matplotlib.pyplot"  # built now, not as a stderr message inside a notebook under test
PROBE = "import sys; print('%d.%d.%d' % sys.version_info[:3]); sys.stdout.flush(); import pip"


def dotted(version):
    return ".".join(str(part) for part in version)


def too_old_message(python, version, goal):
    """The one line a learner with an old Python sees, before anything is created."""
    return (
        f"{python} is Python {version}, too old for this course: requirements.txt's pins "
        f"({', '.join(NEEDED_BY)}) need Python {dotted(NEEDS)} or newer. Install one "
        f"(macOS: brew install python@{SUGGESTED}; Linux: sudo apt install python{SUGGESTED}-venv, "
        f"or pyenv install {SUGGESTED}), then run: make PYTHON=python{SUGGESTED} {goal}"
    )


def say(line=""):
    print(line, flush=True)


def minutes(seconds):
    seconds = int(round(seconds))
    return f"{seconds // 60} min {seconds % 60} s" if seconds >= 60 else f"{seconds} s"


def diagnose(venv):
    """('absent' | 'complete' | 'rebuild' | 'foreign', why, the venv python's version or None)."""
    if not os.path.lexists(venv):
        return "absent", f"{venv} does not exist yet", None
    if not os.path.isdir(venv):
        return "foreign", f"{venv} is a file, not a folder", None
    entries = set(os.listdir(venv))
    if not entries:
        return "absent", f"{venv} is an empty folder", None
    if "pyvenv.cfg" not in entries:
        if entries <= VENV_SKELETON:
            return "rebuild", f"{venv} is half-made (no pyvenv.cfg): an earlier setup was interrupted", None
        return "foreign", f"{venv} is a folder but not a virtual environment (it has no pyvenv.cfg)", None
    python = os.path.join(venv, "bin", "python")
    try:
        done = subprocess.run([python, "-c", PROBE], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return "rebuild", f"its python does not run ({exc.__class__.__name__}: {exc})", None
    lines = done.stdout.decode("utf-8", "replace").splitlines()
    try:
        version = tuple(int(part) for part in lines[0].split("."))
    except (IndexError, ValueError):
        last = lines[-1] if lines else f"exit status {done.returncode}"
        return "rebuild", f"its python does not run ({last.strip()})", None
    if version[:2] < NEEDS:
        why = f"it was made with Python {dotted(version)} and the course needs {dotted(NEEDS)} or newer"
        return "rebuild", why, version
    if done.returncode != 0:
        why = "it has no pip (an earlier setup was interrupted, or it was made with --without-pip)"
        return "rebuild", why, version
    if not os.path.exists(os.path.join(venv, STAMP)):
        return "rebuild", f"no {STAMP} stamp in it: an earlier setup did not finish", version
    return "complete", f"{venv} is complete (Python {dotted(version)})", version


def run_step(number, total, title, cmd):
    say(f"[{number}/{total}] {title}")
    say("      $ " + " ".join(shlex.quote(part) for part in cmd))
    started = time.monotonic()
    done = subprocess.run(cmd)
    if done.returncode != 0:
        raise StepFailed(f"{title}: failed (exit status {done.returncode}), see the output above")
    say(f"      done in {minutes(time.monotonic() - started)}")


class StepFailed(Exception):
    pass


def install(venv, requirements, warm_up, create):
    """Create the venv (when `create`), install the requirements, warm up; the stamp comes last."""
    python = os.path.join(venv, "bin", "python")
    steps = (1 if create else 0) + 1 + (1 if warm_up else 0)
    step = 0
    if create:
        step += 1
        title = f"Creating {venv} with {sys.executable} (Python {dotted(sys.version_info[:3])})"
        try:
            run_step(step, steps, title, [sys.executable, "-m", "venv", venv])
        except StepFailed:
            raise StepFailed(
                f"could not create {venv} with {sys.executable}; on Debian or Ubuntu install the venv module: "
                f"sudo apt install python{sys.version_info[0]}.{sys.version_info[1]}-venv"
            ) from None
    step += 1
    title = f"Installing {requirements} with pip; pip's own output follows"
    if create:
        title += " (PyTorch is large: downloading and unpacking it takes most of the time)"
    run_step(step, steps, title, [python, "-m", "pip", "install", "--disable-pip-version-check", "-r", requirements])
    if warm_up:
        step += 1
        title = "Building matplotlib's font cache" if warm_up == FONT_CACHE else f"Running {warm_up!r} in it"
        run_step(step, steps, title, [python, "-c", warm_up])
    with open(os.path.join(venv, STAMP), "w") as stamp:
        stamp.write(time.strftime("%Y-%m-%d %H:%M:%S\n"))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", default=".venv", help="the environment's folder (default: .venv)")
    parser.add_argument("--requirements", default="requirements.txt", help="what to install (requirements.txt)")
    parser.add_argument(
        "--warm-up",
        default=FONT_CACHE,
        help="Python run in the environment after the install (default builds matplotlib's font cache); '' for none",
    )
    parser.add_argument("--goal", default="setup", help="the make command the learner ran, for the messages")
    parser.add_argument("--check", action="store_true", help="only say whether the environment is complete")
    args = parser.parse_args(argv)
    venv = args.venv.rstrip("/") or "/"

    state, why, _ = diagnose(venv)
    if args.check:
        say(why)
        return 0 if state == "complete" else 1
    if state == "foreign":
        sys.stderr.write(f"{why}: not touching it. Move it away, or pass another folder: make VENV=.venv2 ...\n")
        return 2
    if state != "complete" and sys.version_info[:2] < NEEDS:
        # checked before anything is created or deleted
        sys.stderr.write(too_old_message(sys.executable, dotted(sys.version_info[:3]), args.goal) + "\n")
        return 2
    if not os.path.isfile(args.requirements):
        sys.stderr.write(f"No requirements file {args.requirements}: run this from the course's folder\n")
        return 2

    started = time.monotonic()
    if state != "complete" and os.path.realpath(sys.prefix) == os.path.realpath(venv):
        sys.stderr.write(f"{why}; run this with another Python, not {venv}'s own: python3 {sys.argv[0]}\n")
        return 2
    if state == "complete":
        say(f"Updating {venv} in place: it is complete, so pip installs only what changed in {args.requirements}.")
    elif state == "rebuild":
        say(f"Rebuilding {venv}: {why}.")
    else:
        say(f"Setting up {venv}: the first time takes a few minutes, mostly downloading PyTorch.")
    try:
        if state == "rebuild":
            shutil.rmtree(venv)
        install(venv, args.requirements, args.warm_up, create=state != "complete")
    except StepFailed as exc:
        sys.stderr.write(f"Setup failed: {exc}. Fix that and run make {args.goal} again.\n")
        return 1
    except KeyboardInterrupt:
        stamp = os.path.join(venv, STAMP)
        if os.path.exists(stamp):
            os.remove(stamp)  # a pip install cut short can leave a package half-written: rebuild next time
        sys.stderr.write(f"\nInterrupted: {venv} is not complete; the next make {args.goal} rebuilds it.\n")
        return 130
    say(f"Setup took {minutes(time.monotonic() - started)}: {venv} is ready.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
