"""Transparent stdio tap: run a server command and log every line crossing its stdin/stdout.

    python3 wiretap.py LOGFILE [--] <server command and args...>

Each logged line is `> <line>` (client to server) or `< <line>` (server to client), flushed
as it passes. Stderr is inherited. Exits with the server's exit code. SIGTERM/SIGINT/SIGHUP are
forwarded to the server (a client that kills the tap must not orphan the server: an orphan keeps
the client's stderr pipe open and some clients then wait forever), and after stdin EOF the server
gets GRACE seconds (env WIRETAP_GRACE, default 3) to exit before it is terminated. Standard library only,
so any Python 3.8+ runs it; the client scripts use it to see what their SDK really sent
(e.g. whether `mode="auto"` probed with server/discover).
"""

import os
import signal
import subprocess
import sys
import threading


def main() -> int:
    argv = sys.argv[1:]
    command = argv[2:] if len(argv) > 1 and argv[1] == "--" else argv[1:]
    if not command:
        sys.stderr.write("usage: wiretap.py LOGFILE [--] <server command and args...>\n")
        return 2
    log = open(argv[0], "ab", buffering=0)
    lock = threading.Lock()
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)

    def record(prefix: bytes, line: bytes) -> None:
        with lock:
            log.write(prefix + line if line.endswith(b"\n") else prefix + line + b"\n")

    def pump_in() -> None:
        try:
            for line in iter(sys.stdin.buffer.readline, b""):
                record(b"> ", line)
                child.stdin.write(line)
                child.stdin.flush()
        except (BrokenPipeError, OSError):
            pass
        finally:
            try:
                child.stdin.close()
            except OSError:
                pass

    def stop(signum, _frame) -> None:
        if child.poll() is None:
            child.send_signal(signum)
            try:
                child.wait(timeout=3)
            except subprocess.TimeoutExpired:
                child.kill()
        os._exit(128 + signum)

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, stop)

    def reap_after_eof() -> None:
        try:
            child.wait(timeout=float(os.environ.get("WIRETAP_GRACE", "3")))
        except subprocess.TimeoutExpired:
            child.terminate()
            try:
                child.wait(timeout=3)
            except subprocess.TimeoutExpired:
                child.kill()

    def pump_in_then_reap() -> None:
        pump_in()
        reap_after_eof()

    threading.Thread(target=pump_in_then_reap, daemon=True).start()
    out = sys.stdout.buffer
    try:
        for line in iter(child.stdout.readline, b""):
            record(b"< ", line)
            out.write(line)
            out.flush()
    except (BrokenPipeError, OSError):
        pass
    return child.wait()


if __name__ == "__main__":
    sys.exit(main())
