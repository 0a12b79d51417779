"""HTTPS (issue 11 item 6): --tls-cert and --tls-key serve the API over TLS
through libmicrohttpd's GnuTLS support.

The test makes a self-signed certificate for 127.0.0.1 with openssl (skipped,
with the reason printed, when openssl is missing), starts rigd with it and
talks to it with Python's ssl module verifying against that certificate: reads
and writes work, the "listening" log line says "tls": true, and plain HTTP on
the same port gets no answer. Start-up fails with a clear message when only
one of the two flags is given (exit 2) or a file cannot be read (exit 1).
Before this change rigd ignored both flags and served plain HTTP.
"""
import http.client
import json
import os
import shutil
import socket
import ssl
import subprocess
import tempfile
import unittest

from rigd_harness import RIGD_BIN, Rigd, main


class Tls(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="rigd-tls-")
        cls.cert = os.path.join(cls.dir, "cert.pem")
        cls.key = os.path.join(cls.dir, "key.pem")
        if not shutil.which("openssl"):
            print("\nskipped: openssl is not installed", flush=True)
            raise unittest.SkipTest("openssl is not installed")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                        "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                        "-keyout", cls.key, "-out", cls.cert],
                       check=True, capture_output=True)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def https(self, rigd):
        ctx = ssl.create_default_context(cafile=self.cert)
        return http.client.HTTPSConnection("127.0.0.1", rigd.port, timeout=20, context=ctx)

    def call(self, conn, method, path, body=None):
        headers = {"Content-Type": "application/json"} if body is not None else {}
        conn.request(method, path, body=None if body is None else json.dumps(body),
                     headers=headers)
        r = conn.getresponse()
        return r.status, r.read()

    def test_serves_https_verified_against_the_certificate(self):
        with Rigd(extra_args=("--tls-cert", self.cert, "--tls-key", self.key)) as rigd:
            conn = self.https(rigd)
            try:
                self.assertEqual(self.call(conn, "GET", "/healthz"), (200, b'{"status":"ok"}'))
                status, _ = self.call(conn, "POST", "/v1/projects", {"projectId": "p", "name": "p"})
                self.assertEqual(status, 201)
                status, body = self.call(conn, "GET", "/v1/projects/p")
                self.assertEqual((status, json.loads(body)["projectId"]), (200, "p"))
                # the connection was kept alive across the three requests
                self.assertEqual(conn.sock.version()[:4], "TLSv")
            finally:
                conn.close()
            listening = [json.loads(l) for l in rigd.read_log().splitlines()
                         if '"listening"' in l][0]
            self.assertIs(listening["tls"], True)
            # plain HTTP on the TLS port is not served
            s = socket.create_connection(("127.0.0.1", rigd.port), timeout=10)
            try:
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                try:
                    data = s.recv(100)
                except (ConnectionResetError, socket.timeout):
                    data = b""
            finally:
                s.close()
            self.assertFalse(data.startswith(b"HTTP/1.1 200"), data)

    def test_plain_http_says_tls_false(self):
        with Rigd() as rigd:
            listening = [json.loads(l) for l in rigd.read_log().splitlines()
                         if '"listening"' in l][0]
            self.assertIs(listening["tls"], False)

    def start_fails(self, args):
        tmp = tempfile.mkdtemp(prefix="rigd-tls-start-")
        try:
            p = subprocess.run([RIGD_BIN, "--db", os.path.join(tmp, "db"), "--listen",
                                "127.0.0.1:0", "--auth", "off", *args],
                               capture_output=True, text=True, timeout=20)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return p.returncode, p.stderr

    def test_start_up_fails_clearly(self):
        code, err = self.start_fails(["--tls-cert", self.cert])
        self.assertEqual(code, 2, err)
        self.assertIn("--tls-key", err)
        code, err = self.start_fails(["--tls-key", self.key])
        self.assertEqual(code, 2, err)
        self.assertIn("--tls-cert", err)
        missing = os.path.join(self.dir, "missing.pem")
        code, err = self.start_fails(["--tls-cert", missing, "--tls-key", self.key])
        self.assertEqual(code, 1, err)
        self.assertIn("cannot read the TLS certificate", err)
        self.assertIn(missing, err)
        code, err = self.start_fails(["--tls-cert", self.cert, "--tls-key", missing])
        self.assertEqual(code, 1, err)
        self.assertIn("cannot read the TLS key", err)
        # a key that does not match the certificate (or is not PEM)
        code, err = self.start_fails(["--tls-cert", self.cert, "--tls-key", self.cert])
        self.assertEqual(code, 1, err)
        self.assertIn("HTTPS", err)


if __name__ == "__main__":
    main()
