"""``kumo-gym serve ENV --port 8000``: an environment as an OpenEnv server
(:mod:`kumo_gym.integrations.serving`)."""
from __future__ import annotations

from ..core.registry import resolve_env_id
from .args import add_env_args, env_kwargs, nonnegative_float, positive_float, positive_int


def cmd_serve(args, extra) -> int:
    from ..integrations.serving import serve

    kw = env_kwargs(args, extra)
    serve(resolve_env_id(args.env), kw, host=args.host, port=args.port, workers=args.workers,
          max_sessions=args.max_sessions, idle_timeout_s=args.idle_timeout, max_message_mb=args.max_message_mb,
          log_level=args.log_level)
    return 0


def register(sub) -> None:
    from ..integrations.serving import DEFAULT_IDLE_TIMEOUT_S, DEFAULT_MAX_MESSAGE_MB, DEFAULT_MAX_SESSIONS

    p = sub.add_parser("serve", help="serve an environment over OpenEnv's HTTP/WebSocket API",
                       description="Serve ENV with OpenEnv's protocol (pip install 'kumo-gym[openenv]'): one "
                                   "environment per WebSocket session; reset by seed or by instance. See "
                                   "docs/integrations.md.")
    add_env_args(p, seed=False)  # each client seeds its own reset
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; 0.0.0.0 for all)")
    p.add_argument("--port", type=positive_int, default=8000)
    p.add_argument("--workers", type=positive_int, default=1,
                   help="server processes sharing the port (default 1; about one per core the server may use)")
    p.add_argument("--max-sessions", type=positive_int, default=DEFAULT_MAX_SESSIONS,
                   help=f"sessions open at once, across the workers (default {DEFAULT_MAX_SESSIONS}); one more is "
                        "refused with HTTP 503 and Retry-After")
    p.add_argument("--idle-timeout", type=nonnegative_float, default=DEFAULT_IDLE_TIMEOUT_S, metavar="SECONDS",
                   help=f"close a session that sent nothing for this long, with close code 4408 (default "
                        f"{DEFAULT_IDLE_TIMEOUT_S:g}; 0: never)")
    p.add_argument("--max-message-mb", type=positive_float, default=DEFAULT_MAX_MESSAGE_MB, metavar="MB",
                   help=f"the largest message a client may send (default {DEFAULT_MAX_MESSAGE_MB} MiB)")
    p.add_argument("--log-level", default="warning", choices=["debug", "info", "warning", "error"],
                   help="default warning: one line per abnormal close, nothing per normal session")
    p.set_defaults(func=cmd_serve, takes_extra=True)
