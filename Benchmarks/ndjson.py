"""What the benchmarks' Python clients share: one newline-delimited JSON-RPC connection to
petspotd's socket. Scripts run from the repository's root add Benchmarks/ to sys.path."""
import json, socket


class Conn:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX)
        self.s.connect(path)
        self.buf = b""
        self.next = 0
        # Notifications (and any line) read while waiting for an answer, in order.
        self.notes = []

    def lines(self, timeout=None):
        """The whole lines one read brings; waits up to `timeout` (socket.timeout past it)."""
        self.s.settimeout(timeout)
        data = self.s.recv(1 << 20)
        if not data:
            raise SystemExit("petspotd closed a connection")
        self.buf += data
        *done, self.buf = self.buf.split(b"\n")
        return [json.loads(line) for line in done]

    def call(self, method, params={}):
        """The result of one call; an error ends the script, naming the method."""
        self.next += 1
        self.s.sendall((json.dumps({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params}) + "\n").encode())
        while True:
            answer = None
            for m in self.lines():
                if answer is None and m.get("id") == self.next:
                    answer = m
                else:
                    self.notes.append(m)
            if answer is not None:
                if "error" in answer:
                    raise SystemExit(f"{method}: {answer['error']}")
                return answer["result"]
