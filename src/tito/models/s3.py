"""Model folders from S3, downloaded once at cold start into a local cache.

Why: a Lambda layer is capped at 250 MB unzipped (function + layers), so a large tokenizer can be
kept in S3 instead. ``TITO_MODELS_S3_URI=s3://bucket/prefix`` holds model folders as
``prefix/<name>/tokenizer.json``, ``prefix/<name>/tokenizer_config.json``, ``prefix/<name>/tito.json``
(and optionally ``chat_template.jinja``). :func:`sync_models` mirrors them into
``TITO_MODELS_CACHE_DIR`` (default ``/tmp/tito-models``), one subfolder per URI, and the registry
loads that folder next to the layer's.

Safety and cost bounds (checked on the listing, before anything is written):

* every key must be a plain relative path below the prefix: no ``..``, ``.``, empty segments,
  backslashes, NUL or absolute paths (no path traversal out of the cache); such a key refuses the
  whole sync. Keys directly under the prefix (not inside a model folder) and folder markers
  (keys ending in ``/``) are ignored;
* at most ``TITO_MODELS_S3_MAX_BYTES`` bytes in total (default 512 MiB, the default Lambda
  ``/tmp`` size) and at most 1,000 objects;
* a download that returns more bytes than listed is aborted.

A file already cached with the same size and ETag (recorded in a manifest next to the files) is
not downloaded again, so a restarted runtime in a warm sandbox only pays one LIST. Files no longer
under the prefix are removed from the cache. ``boto3`` is imported only here, and only when S3 is
configured: importing it costs 0.3-0.8 s of cold start.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from tito.models.model_spec import ModelLoadError

logger = logging.getLogger(__name__)

DEFAULT_CACHE_DIR = "/tmp/tito-models"
DEFAULT_MAX_BYTES = 512 * 1024 * 1024
MAX_OBJECTS = 1000
MANIFEST_FILE = ".tito-s3-manifest.json"
_CHUNK = 1024 * 1024


@dataclass
class SyncResult:
    """What :func:`sync_models` did. ``local_dir`` holds the model folders."""

    local_dir: Path
    downloaded: list[str] = field(default_factory=list)
    cached: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)


def parse_s3_uri(uri: str) -> tuple[str, str]:
    """``s3://bucket/some/prefix`` -> ``("bucket", "some/prefix/")`` (prefix "" or ending in /)."""
    if not uri.startswith("s3://"):
        raise ModelLoadError(f"TITO_MODELS_S3_URI must look like s3://bucket/prefix, got {uri!r}")
    bucket, _, prefix = uri[len("s3://"):].partition("/")
    if not bucket:
        raise ModelLoadError(f"TITO_MODELS_S3_URI has no bucket: {uri!r}")
    prefix = prefix.strip("/")
    if prefix and any(part in ("", ".", "..") for part in prefix.split("/")):
        raise ModelLoadError(f"TITO_MODELS_S3_URI has an unsafe prefix: {uri!r}")
    return bucket, (prefix + "/" if prefix else "")


def safe_relative_key(relative: str) -> PurePosixPath:
    """Validate a key relative to the prefix as a path inside the cache; refuse traversal."""
    if (
        not relative
        or relative.startswith("/")
        or "\\" in relative
        or "\x00" in relative
        or (len(relative) > 1 and relative[1] == ":")
    ):
        raise ModelLoadError(f"S3 model key {relative!r} is not a safe relative path")
    parts = relative.split("/")
    if any(part in ("", ".", "..") for part in parts):
        raise ModelLoadError(f"S3 model key {relative!r} is not a safe relative path")
    return PurePosixPath(*parts)


def cache_dir_for(uri: str, cache_dir: str | Path) -> Path:
    """One cache subfolder per URI, so two URIs never mix their files."""
    return Path(cache_dir) / hashlib.sha256(uri.encode()).hexdigest()[:16]


def _list(client: Any, bucket: str, prefix: str) -> list[dict[str, Any]]:
    objects: list[dict[str, Any]] = []
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
        objects.extend(page.get("Contents", []))
        if len(objects) > MAX_OBJECTS:
            raise ModelLoadError(
                f"s3://{bucket}/{prefix}: more than {MAX_OBJECTS} objects; refusing to download"
            )
    return objects


def _download(client: Any, bucket: str, key: str, etag: str, size: int, target: Path) -> None:
    """Stream one object to ``target`` (atomic replace), never writing more than ``size`` bytes."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f"{target.name}.tito-tmp-{os.getpid()}")
    try:
        response = client.get_object(Bucket=bucket, Key=key, IfMatch=etag)
        written = 0
        with tmp.open("wb") as out:
            body = response["Body"]
            while chunk := body.read(_CHUNK):
                written += len(chunk)
                if written > size:
                    raise ModelLoadError(f"s3://{bucket}/{key}: more bytes than the listed {size}")
                out.write(chunk)
        if written != size:
            raise ModelLoadError(f"s3://{bucket}/{key}: got {written} bytes, listed {size}")
        os.replace(tmp, target)
        modified = response.get("LastModified")
        if modified is not None:  # keeps ServedModel.created stable across cold starts
            stamp = modified.timestamp()
            os.utime(target, (stamp, stamp))
    finally:
        tmp.unlink(missing_ok=True)


def _read_manifest(path: Path) -> dict[str, dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def sync_models(
    uri: str,
    cache_dir: str | Path | None = None,
    *,
    max_bytes: int | None = None,
    client: Any = None,
    environ: Mapping[str, str] | None = None,
) -> SyncResult:
    """Mirror the model folders under ``uri`` into the local cache; return where they are.

    ``cache_dir`` defaults to ``TITO_MODELS_CACHE_DIR`` or ``/tmp/tito-models``; ``max_bytes``
    to ``TITO_MODELS_S3_MAX_BYTES`` or 512 MiB; ``client`` to a new boto3 S3 client.
    """
    env = os.environ if environ is None else environ
    bucket, prefix = parse_s3_uri(uri)
    if cache_dir is None:
        cache_dir = env.get("TITO_MODELS_CACHE_DIR") or DEFAULT_CACHE_DIR
    if max_bytes is None:
        max_bytes = int(env.get("TITO_MODELS_S3_MAX_BYTES") or DEFAULT_MAX_BYTES)
    if client is None:
        import boto3  # lazy: only S3-configured deployments pay for the import

        client = boto3.client("s3")

    try:
        listing = _list(client, bucket, prefix)
    except ModelLoadError:
        raise
    except Exception as exc:  # botocore ClientError, credentials, network
        raise ModelLoadError(f"cannot list {uri}: {exc}") from exc

    wanted: dict[PurePosixPath, dict[str, Any]] = {}
    total = 0
    for obj in listing:
        key: str = obj["Key"]
        relative = key[len(prefix):]
        if not relative or relative.endswith("/"):
            continue  # the prefix itself or a "folder" marker
        rel = safe_relative_key(relative)
        if len(rel.parts) < 2:
            continue  # not inside a model folder
        total += int(obj["Size"])
        if total > max_bytes:
            raise ModelLoadError(
                f"{uri}: objects exceed {max_bytes} bytes (TITO_MODELS_S3_MAX_BYTES); refusing to download"
            )
        wanted[rel] = {"key": key, "etag": obj["ETag"], "size": int(obj["Size"])}

    local = cache_dir_for(uri, cache_dir)
    local.mkdir(parents=True, exist_ok=True)
    root = local.resolve()
    manifest_path = local / MANIFEST_FILE
    manifest = _read_manifest(manifest_path)
    result = SyncResult(local_dir=local)

    for rel, meta in wanted.items():
        target = local.joinpath(*rel.parts)
        if not target.resolve().is_relative_to(root):  # defence in depth (symlinks in the cache)
            raise ModelLoadError(f"S3 model key {meta['key']!r} escapes the cache directory")
        entry = manifest.get(rel.as_posix())
        if (
            isinstance(entry, dict)
            and entry.get("etag") == meta["etag"]
            and entry.get("size") == meta["size"]
            and target.is_file()
            and target.stat().st_size == meta["size"]
        ):
            result.cached.append(rel.as_posix())
            continue
        try:
            _download(client, bucket, meta["key"], meta["etag"], meta["size"], target)
        except ModelLoadError:
            raise
        except Exception as exc:
            raise ModelLoadError(f"cannot download s3://{bucket}/{meta['key']}: {exc}") from exc
        manifest[rel.as_posix()] = {"etag": meta["etag"], "size": meta["size"]}
        result.downloaded.append(rel.as_posix())

    # Drop what is no longer in S3, so a deleted model does not linger in a warm sandbox.
    keep = {rel.as_posix() for rel in wanted}
    for path in sorted(local.rglob("*"), reverse=True):
        relative = path.relative_to(local).as_posix()
        if path.is_file() and relative != MANIFEST_FILE and relative not in keep:
            path.unlink()
            result.removed.append(relative)
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()
    manifest = {k: v for k, v in manifest.items() if k in keep}
    tmp_manifest = manifest_path.with_name(f"{MANIFEST_FILE}.tmp-{os.getpid()}")
    tmp_manifest.write_text(json.dumps(manifest, sort_keys=True), encoding="utf-8")
    os.replace(tmp_manifest, manifest_path)

    logger.info(
        "synced %s -> %s: %d downloaded, %d cached, %d removed",
        uri, local, len(result.downloaded), len(result.cached), len(result.removed),
    )
    return result
