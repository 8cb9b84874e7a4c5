"""`duocthu-ask`: one question, the answer payload as JSON on stdout (CONTRACT "Command lines").

Exit 0 for any answer, abstentions included; 2 when there is no usable index to ask (a missing, damaged or
altered one, said in one line); 1, also in one line, for a failure nothing foresaw; 130 for Ctrl+C (one line).
Never a traceback. A question
whose bytes are not valid UTF-8 is asked with the bad bytes replaced (U+FFFD), never left to crash a later write.
"""

from __future__ import annotations

import argparse
import signal
import sys

from duocthu_desktop.errors import DuocthuError
from duocthu_desktop.settings import Settings


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="duocthu-ask", description="Ask Dược thư one question; prints the payload.")
    add_common_arguments(parser)
    parser.add_argument("--conversation", metavar="ID", help="continue this conversation (follow-ups, clarify count)")
    parser.add_argument("question", help="the question, in Vietnamese")
    return parser


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--index", metavar="DIR", help="folder made by `duocthu-ingest build --out` ($DUOCTHU_INDEX)")
    parser.add_argument("--engine", choices=("extractive", "generative"), default=None,
                        help="answer engine (default: extractive)")
    parser.add_argument("--model", metavar="GGUF", help="language model for the generative engine ($DUOCTHU_MODEL)")


def open_assistant(args: argparse.Namespace):
    """The Assistant for these arguments: flag > environment > saved settings."""
    from duocthu_desktop.qa.pipeline import Assistant

    settings = Settings.load(index=args.index, model=args.model, engine=args.engine)
    return Assistant.open(settings, engine_name=args.engine or settings.engine)


def clean_arg(text: str | None) -> str | None:
    """An argument as valid text: bytes the OS could not decode (kept by Python as lone surrogates) become U+FFFD."""
    if text is None:
        return None
    if not any("\ud800" <= ch <= "\udfff" for ch in text):
        return text
    try:  # undo surrogateescape (the valid UTF-8 around the bad bytes comes back), replace the rest
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def one_line(text: str) -> str:
    return " ".join(text.split())


def write_payload(payload) -> None:
    """The payload as UTF-8 JSON on stdout, whatever the terminal's encoding."""
    data = (payload.model_dump_json(indent=1) + "\n").encode("utf-8")
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:  # a text-only stream (tests capture stdout this way)
        sys.stdout.write(data.decode("utf-8"))
    else:
        sys.stdout.flush()
        buffer.write(data)
        buffer.flush()


INTERRUPTED = 130  # 128 + SIGINT: what a shell reports for a program stopped by Ctrl+C


def interrupted(prog: str) -> int:
    """Ctrl+C: one line, exit 130; a second Ctrl+C while the program unwinds is ignored, so no traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    print(f"{prog}: đã dừng theo yêu cầu (Ctrl+C).", file=sys.stderr)
    return INTERRUPTED


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except KeyboardInterrupt:
        return interrupted("duocthu-ask")


def _main(argv: list[str] | None) -> int:
    args = build_parser().parse_args(argv)
    args.question = clean_arg(args.question)
    args.conversation = clean_arg(args.conversation)
    try:
        assistant = open_assistant(args)
        payload = assistant.ask(args.question, conversation_id=args.conversation)
    except DuocthuError as err:
        print(one_line(f"duocthu-ask: {err}"), file=sys.stderr)
        return 2
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as err:  # noqa: BLE001 - chromadb's native panics are BaseExceptions; still one line
        print(one_line(f"duocthu-ask: lỗi không lường trước ({type(err).__name__}: {err})"), file=sys.stderr)
        return 1
    write_payload(payload)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
