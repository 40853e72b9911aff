#!/usr/bin/env python3
"""Seeds Fuzz/Corpus/FuzzHTTPReader: HTTP/1.1 requests as clients send them to the verification server (wrk, curl,
URLSession, AsyncHTTPClient shapes; pipelined; chunked) and the framings request smuggling uses. The first byte of an
input also chooses the fuzzer's split size. Run from the repository root.
"""
import pathlib

out = pathlib.Path(__file__).resolve().parent / "Corpus" / "FuzzHTTPReader"
out.mkdir(parents=True, exist_ok=True)
body = b'{"token":"PHNpZ25hdHVyZUluZm8+","requestor":"load-test","resource":"res"}'
seeds = {
    "get-health": b"GET /health HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n",
    "curl-get": b"GET /health HTTP/1.1\r\nHost: localhost\r\nUser-Agent: curl/7.88.1\r\nAccept: */*\r\n\r\n",
    "wrk-post": b"POST /verify HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Type: application/json\r\nContent-Length: "
    + str(len(body)).encode() + b"\r\n\r\n" + body,
    "bearer-metrics": b"GET /metrics HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer a-shared-secret-of-32-characters\r\n\r\n",
    "http10-keep-alive": b"HEAD /health HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
    "pipelined": b"GET /health HTTP/1.1\r\nHost: a\r\n\r\nPOST /verify HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n{}"
    + b"GET /health HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
    "chunked": b"POST /verify HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;x=1\r\nhello\r\n0\r\nT: v\r\n\r\n",
    "leading-crlf": b"\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n",
    "cl-te": b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: a\r\n\r\n",
    "te-cl": b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 30\r\n\r\n0\r\n\r\nGET /smuggled HTTP/1.1\r\n\r\n",
    "two-cl": b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\nContent-Length: 36\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: a\r\n\r\n",
    "bare-lf": b"GET / HTTP/1.1\nHost: a\n\n",
    "obs-fold": b"GET / HTTP/1.1\r\nHost: a\r\nX: a\r\n b\r\n\r\n",
    "space-colon": b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length : 3\r\n\r\nabc",
    "te-gzip": b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
    "chunk-overflow": b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff1\r\n",
    "bare-cr": b"GET / HTTP/1.1\r\nHost: a\rX: b\r\n\r\n",
}
for name, data in seeds.items():
    (out / name).write_bytes(data)
print(f"{len(seeds)} seeds in {out}")
