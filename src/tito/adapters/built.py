"""Run what ``sam build`` produced, without Docker: the real runtime client on a local Runtime API.

``tito invoke --build-dir .aws-sam/build FUNCTION EVENT...`` uses this module. Why it exists:
``sam local invoke`` needs Docker, and ``tito invoke`` without ``--build-dir`` runs the source
tree, not the artifact. This runs the *artifact*, the way Lambda does:

* **the layout** is read from the built template (``.aws-sam/build/template.yaml``): the
  function's folder is the task root (``/var/task``: first on ``sys.path``, the working directory),
  its layers are merged in template order into one folder that stands for ``/opt`` (``python/``
  on ``sys.path`` after the task root, as Lambda's Python runtime has it), and environment values
  that name ``/opt/...`` are pointed there (``TITO_MODELS_DIR=/opt/models``);
* **the environment** is the function's ``Environment.Variables`` with the template's parameter
  defaults (or ``--parameter KEY=VALUE``), conditions and ``AWS::NoValue`` resolved, plus the
  variables Lambda itself sets (``AWS_LAMBDA_FUNCTION_NAME``, ``LAMBDA_TASK_ROOT``, ``_HANDLER``...);
* **the process** is ``python3.13 -m awslambdaric <Handler>`` (the runtime interface client that
  Lambda's own images run), speaking to :class:`RuntimeApi`, a local implementation of the Lambda
  Runtime API (``/2018-06-01/runtime/invocation/next``, ``.../response``, ``.../error``,
  ``/runtime/init/error``). One process serves every event in turn, so the first is a cold start
  and the others are warm, as in Lambda.

The build must target this machine: ``TITO_ARCH=x86_64 sam build --parameter-overrides
Architecture=x86_64`` on an x86-64 host (an arm64 build on an x86-64 host is refused with that
hint). The runtime's Python (``python3.13`` for ``Runtime: python3.13``) is found on ``PATH`` or
under pyenv, or given with ``--python``; ``awslambdaric`` is installed for it once into a cache
folder (``~/.cache/tito``) unless it can already import it.

The built template is read by :mod:`tito.adapters.built_template` (:class:`BuiltFunction`,
:class:`BuildError`: public names here too).
"""

from __future__ import annotations

import dataclasses
import json
import os
import platform
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tito.adapters.built_template import BuildError, BuiltFunction

__all__ = ["BuiltFunction", "Invocation", "RuntimeApi", "find_runtime_python", "run_events"]

_PREFIX = "/2018-06-01/runtime"
_ELF_MACHINES = {62: "x86_64", 183: "arm64"}  # e_machine: EM_X86_64, EM_AARCH64
_MACHINE_ARCH = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "arm64", "arm64": "arm64"}


# -- the Runtime API -----------------------------------------------------------------------------


@dataclasses.dataclass
class Invocation:
    """One event and what the function answered (``response`` or ``error``)."""

    event: Any
    request_id: str = dataclasses.field(default_factory=lambda: str(uuid.uuid4()))
    response: Any = None
    error: Any = None
    done: threading.Event = dataclasses.field(default_factory=threading.Event)
    duration_ms: float = 0.0
    started: float = 0.0


class RuntimeApi:
    """A local Lambda Runtime API: hands queued events to the runtime client, collects answers.

    Example::

        with RuntimeApi(function_arn="arn:aws:lambda:...:function:f", timeout_s=29) as api:
            ...  # start a runtime client with AWS_LAMBDA_RUNTIME_API=api.address
            result = api.invoke({"rawPath": "/health", ...})
    """

    def __init__(self, *, function_arn: str, timeout_s: float) -> None:
        self.function_arn = function_arn
        self.timeout_s = timeout_s
        self._pending: queue.Queue[Invocation] = queue.Queue()
        self._by_id: dict[str, Invocation] = {}
        self.init_error: Any = None
        self.init_failed = threading.Event()
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet: the function's logs matter
                pass

            def _reply(self, status: int, body: bytes = b"", headers: Mapping[str, str] = {}) -> None:
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _body(self) -> Any:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    return json.loads(raw) if raw else None
                except ValueError:
                    return raw.decode("utf-8", errors="replace")

            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                if self.path != f"{_PREFIX}/invocation/next":
                    self._reply(404)
                    return
                item = api._pending.get()
                item.started = time.monotonic()
                deadline = int((time.time() + api.timeout_s) * 1000)
                self._reply(200, json.dumps(item.event).encode(), {
                    "Content-Type": "application/json",
                    "Lambda-Runtime-Aws-Request-Id": item.request_id,
                    "Lambda-Runtime-Deadline-Ms": str(deadline),
                    "Lambda-Runtime-Invoked-Function-Arn": api.function_arn,
                    "Lambda-Runtime-Trace-Id": f"Root=1-{uuid.uuid4().hex[:8]}-{uuid.uuid4().hex[:24]}",
                })

            def do_POST(self) -> None:  # noqa: N802
                body = self._body()
                if self.path == f"{_PREFIX}/init/error":
                    api.init_error = body
                    api.init_failed.set()
                    self._reply(202, b'{"status":"OK"}')
                    return
                parts = self.path.removeprefix(f"{_PREFIX}/invocation/").split("/")
                item = api._by_id.get(parts[0]) if len(parts) == 2 else None
                if item is None or parts[1] not in ("response", "error"):
                    self._reply(404)
                    return
                item.duration_ms = (time.monotonic() - item.started) * 1000
                if parts[1] == "response":
                    item.response = body
                else:
                    item.error = body
                self._reply(202, b'{"status":"OK"}')
                item.done.set()

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def address(self) -> str:
        """``host:port``, the value of ``AWS_LAMBDA_RUNTIME_API``."""
        host, port = self._server.server_address[:2]
        return f"{host}:{port}"

    def __enter__(self) -> RuntimeApi:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def invoke(self, event: Any, *, wait_s: float, alive: Any = None) -> Invocation:
        """Queue ``event`` and wait for its answer (``TimeoutError`` after ``wait_s``)."""
        item = Invocation(event=event)
        self._by_id[item.request_id] = item
        self._pending.put(item)
        deadline = time.monotonic() + wait_s
        while not item.done.wait(0.05):
            if self.init_failed.is_set():
                item.error = self.init_error
                return item
            if alive is not None and not alive():
                raise BuildError("the runtime client exited before answering (see its stderr)")
            if time.monotonic() > deadline:
                raise TimeoutError(f"no answer within {wait_s:.0f} s")
        return item


# -- the runtime client process ----------------------------------------------------------------


def _python_version(python: str) -> str | None:
    try:
        out = subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                             capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def find_runtime_python(runtime: str, explicit: str | None = None) -> str:
    """A Python of the runtime's version (``python3.13`` for ``python3.13``): ``explicit``, else
    ``pythonX.Y`` on PATH when it really runs (a pyenv shim may not), else pyenv's X.Y.*."""
    version = runtime.removeprefix("python")
    candidates = [explicit] if explicit else []
    if not explicit:
        candidates.append(shutil.which(f"python{version}") or "")
        root = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv")
        candidates += sorted(str(p) for p in root.glob(f"versions/{version}.*/bin/python"))
        if _python_version(sys.executable) == version:
            candidates.append(sys.executable)
    for candidate in filter(None, candidates):
        if _python_version(candidate) == version:
            return candidate
    raise BuildError(
        f"no Python {version} found for Runtime {runtime} (tried {', '.join(filter(None, candidates)) or 'nothing'}); "
        "pass --python PATH"
    )


def _runtime_client_path(python: str) -> Path | None:
    """A folder that makes ``awslambdaric`` importable by ``python`` (None: it already is)."""
    probe = subprocess.run([python, "-c", "import awslambdaric"], capture_output=True, timeout=60)
    if probe.returncode == 0:
        return None
    version = _python_version(python) or "x"
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    target = cache / "tito" / f"awslambdaric-py{version}-{platform.machine()}"
    if not (target / "awslambdaric").is_dir():
        print(f"installing awslambdaric for {python} into {target} (once)", file=sys.stderr)
        proc = subprocess.run([python, "-m", "pip", "install", "--quiet", "--target", str(target),
                               "awslambdaric"], capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            raise BuildError(f"could not install awslambdaric for {python}:\n{proc.stderr[-2000:]}")
    return target


@contextmanager
def _opt_folder(layers: tuple[Path, ...]) -> Iterator[Path]:
    """The layers merged into one folder, in order (a later layer's file wins), as Lambda
    extracts them into /opt. Symlinked, not copied: the models are large."""
    with tempfile.TemporaryDirectory(prefix="tito-opt-") as tmp:
        opt = Path(tmp)
        for layer in layers:
            for src in layer.rglob("*"):
                dest = opt / src.relative_to(layer)
                if src.is_dir() and not src.is_symlink():
                    dest.mkdir(parents=True, exist_ok=True)
                else:
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    if dest.exists() or dest.is_symlink():
                        dest.unlink()
                    dest.symlink_to(src)
        yield opt


def _built_architecture(fn: BuiltFunction) -> str:
    """What the artifact's native code was built for (the ELF header of its first extension
    module; the template's ``Architecture`` parameter only says what it should be), else the
    template's value."""
    for folder in (fn.task_root, *fn.layers):
        for ext in folder.rglob("*.so"):
            header = ext.read_bytes()[:20]
            if header[:4] == b"\x7fELF":
                return _ELF_MACHINES.get(int.from_bytes(header[18:20], "little"), "unknown")
    return fn.architecture


def _check_architecture(fn: BuiltFunction) -> None:
    here = _MACHINE_ARCH.get(platform.machine().lower(), platform.machine())
    built_for = _built_architecture(fn)
    if built_for != here:
        raise BuildError(
            f"{fn.name} was built for {built_for}; this machine is {here}. Build for it: "
            f"TITO_ARCH={here} sam build --parameter-overrides Architecture={here}"
        )


def run_events(
    fn: BuiltFunction,
    events: list[Any],
    *,
    python: str | None = None,
    extra_env: Mapping[str, str] | None = None,
    stderr: Any = None,
) -> list[Invocation]:
    """Start the runtime client for ``fn``, send ``events`` one after the other, stop it.

    The function's own output (logs, EMF metrics) goes to ``stderr`` (default: this process's).
    """
    _check_architecture(fn)
    if not fn.runtime.startswith("python"):
        raise BuildError(f"{fn.name}: runtime {fn.runtime!r} is not a Python runtime")
    interpreter = find_runtime_python(fn.runtime, python)
    ric = _runtime_client_path(interpreter)
    arn = f"arn:aws:lambda:us-east-1:123456789012:function:{fn.name}"
    with _opt_folder(fn.layers) as opt, RuntimeApi(function_arn=arn, timeout_s=fn.timeout_s) as api:
        env = {key: (str(opt) + value[4:] if value.startswith("/opt/") or value == "/opt" else value)
               for key, value in fn.environment.items()}
        path = [str(fn.task_root), str(opt / "python")] + ([str(ric)] if ric else [])
        env.update({
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": os.environ.get("HOME", "/tmp"),
            "PYTHONPATH": os.pathsep.join(path),
            "PYTHONDONTWRITEBYTECODE": "1",  # /var/task and /opt are read-only in Lambda
            "AWS_LAMBDA_RUNTIME_API": api.address,
            "LAMBDA_TASK_ROOT": str(fn.task_root),
            "_HANDLER": fn.handler,
            "AWS_LAMBDA_FUNCTION_NAME": fn.name,
            "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST",
            "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(fn.memory_mb),
            "AWS_LAMBDA_LOG_GROUP_NAME": f"/aws/lambda/{fn.name}",
            "AWS_LAMBDA_LOG_STREAM_NAME": "local/[$LATEST]tito",
            "AWS_REGION": "us-east-1",
            "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_EXECUTION_ENV": f"AWS_Lambda_{fn.runtime}",
            "TZ": ":UTC",
            **(extra_env or {}),
        })
        proc = subprocess.Popen([interpreter, "-m", "awslambdaric", fn.handler], cwd=fn.task_root,
                                env=env, stdout=stderr or sys.stderr, stderr=stderr or sys.stderr)
        try:
            results = []
            for event in events:
                # The first wait includes the init phase (Lambda allows 10 s, plus the timeout).
                wait = fn.timeout_s + (10 if not results else 0)
                results.append(api.invoke(event, wait_s=wait, alive=lambda: proc.poll() is None))
                if api.init_failed.is_set():
                    break
            return results
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
