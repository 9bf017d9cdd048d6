"""`nki-verify lsp` / `python -m lsp`: start the language server on stdio (or TCP, for debugging)."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from typing import TYPE_CHECKING, NoReturn, Sequence

if TYPE_CHECKING:
    from .server import NkiLanguageServer


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="nki-verify lsp", description="The nki-verify language server. It never "
                                "executes the files it analyses.")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (the default)")
    mode.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP address instead (for debugging)")
    p.add_argument("--debounce", type=float, default=150.0, metavar="MS",
                   help="quiet time after an edit before a document is analysed (default 150 ms)")
    p.add_argument("--time-budget", type=float, default=120.0, metavar="S",
                   help="seconds one analysis may take before its result is given up on (default 120)")
    p.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"),
                   help="log level of the server's stderr log")
    return p


def _address(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit():
        raise argparse.ArgumentTypeError(f"--tcp expects HOST:PORT, not {text!r}")
    return host or "127.0.0.1", int(port)


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:  # the program: the memory layout and hash seed of the CLI (see nki_verify.process)
        from nki_verify.process import fixed_layout

        fixed_layout()
    parser = build_parser()
    args = parser.parse_args(list(argv) if argv is not None else None)
    try:
        address = _address(args.tcp) if args.tcp else None
    except argparse.ArgumentTypeError as exc:
        parser.error(str(exc))
    # stdout carries the protocol: every log line goes to stderr
    logging.basicConfig(stream=sys.stderr, level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: "
                        "%(message)s")
    if args.log_level != "DEBUG":  # pygls logs every message it sends at INFO: only with --log-level DEBUG
        logging.getLogger("pygls").setLevel(max(logging.WARNING, logging.getLevelName(args.log_level)))
    from nki_verify.process import tune_gc

    from .server import create_server
    from .settings import ServerOptions

    import z3  # noqa: F401 - imported before the freeze, as the analysis modules: long-lived

    import nki_verify.api  # noqa: F401

    tune_gc(freeze=True)

    run(create_server(ServerOptions(debounce=args.debounce / 1000.0, time_budget=args.time_budget)), address)
    return 0  # not reached


def run(server: NkiLanguageServer, address: tuple[str, int] | None = None) -> NoReturn:
    """Serve on stdio (or TCP) until the client says exit, then leave the process."""
    if address is not None:
        server.start_tcp(*address)
    else:
        server.start_io()
    # An analysis thread cannot be interrupted, and Python joins worker threads at exit: leave at once, so that
    # an analysis still running (or stuck past its time budget) cannot keep a closed server alive.
    logging.shutdown()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
