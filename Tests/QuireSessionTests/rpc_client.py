"""A JSON-RPC client of `quire rpc`, on Debian's python3-pylsp-jsonrpc streams (LSP framing).

Run by QuireSessionTests with /usr/bin/python3 (the interpreter that sees the Debian package):

    rpc_client.py SCENARIO QUIRE FOLDER

Each scenario drives real `quire rpc` processes in FOLDER, prints what it checked and exits 0,
or prints `FAIL: ...` and exits 1. Benchmarks/ runs the `bench` scenario the same way.
"""

import json
import os
import queue
import random
import subprocess
import sys
import threading
import time

from pylsp_jsonrpc.streams import JsonRpcStreamReader, JsonRpcStreamWriter

PATIENCE = 120  # seconds: only a hung session waits this long


class Failure(Exception):
    pass


def check(condition, what):
    if not condition:
        raise Failure(what)


class Client:
    """One `quire rpc` process and the messages it sends."""

    def __init__(self, quire, folder, encoding=None, ascii_json=True):
        self.process = subprocess.Popen(
            [quire, "rpc"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=folder, env=os.environ.copy()
        )
        self.writer = JsonRpcStreamWriter(self.process.stdin, ensure_ascii=ascii_json)
        self.reader = JsonRpcStreamReader(self.process.stdout)
        self.messages = queue.Queue()
        self.notifications = []
        self.next_id = 1
        threading.Thread(target=self.reader.listen, args=(self.messages.put,), daemon=True).start()
        params = {"capabilities": {"general": {"positionEncodings": [encoding]}}} if encoding else {}
        self.info = self.request("initialize", params)
        self.encoding = self.info["positionEncoding"]

    def send(self, message):
        self.writer.write(message)

    def send_raw(self, data):
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def answer(self, request_id):
        """Waits for the answer to `request_id`, keeping the notifications that come first."""
        deadline = time.monotonic() + PATIENCE
        while True:
            left = deadline - time.monotonic()
            check(left > 0, f"no answer to request {request_id} in {PATIENCE} s")
            try:
                message = self.messages.get(timeout=left)
            except queue.Empty:
                raise Failure(f"no answer to request {request_id}; stderr: {self.stderr_so_far()}")
            if "method" in message and "id" not in message:
                self.notifications.append(message)
            elif message.get("id") == request_id:
                return message
            elif message.get("id") is None and "error" in message:
                # An error about a frame that had no id (bad JSON): answered in order.
                return message

    def call(self, method, params=None):
        """The whole answer (result or error) to one request."""
        request_id = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params or {}})
        return self.answer(request_id)

    def request(self, method, params=None):
        """The result of one request; an error answer fails."""
        message = self.call(method, params)
        check("result" in message, f"{method} failed: {message.get('error')}")
        return message["result"]

    def notification(self, method, predicate=lambda params: True, timeout=PATIENCE):
        """Waits for a notification `method` whose params satisfy `predicate`."""
        deadline = time.monotonic() + timeout
        while True:
            for index, message in enumerate(self.notifications):
                if message["method"] == method and predicate(message["params"]):
                    del self.notifications[: index + 1]
                    return message["params"]
            left = deadline - time.monotonic()
            check(left > 0, f"no {method} notification in {timeout} s (heard {[m['method'] for m in self.notifications]})")
            try:
                message = self.messages.get(timeout=left)
            except queue.Empty:
                continue
            if "method" in message and "id" not in message:
                self.notifications.append(message)

    def stderr_so_far(self):
        return "(see the test's output)"

    def stop(self):
        """shutdown, then exit; returns the exit status."""
        self.request("shutdown")
        self.send({"jsonrpc": "2.0", "method": "exit"})
        return self.process.wait(timeout=PATIENCE)


# MARK: Text model in a chosen encoding


def units(text, encoding):
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-16":
        return len(text.encode("utf-16-le")) // 2
    return len(text)


def position(text, index, encoding):
    """The LSP position of Python string index `index` (code points) in `text`."""
    before = text[:index]
    line = before.count("\n")
    start = before.rfind("\n") + 1
    return {"line": line, "character": units(before[start:], encoding)}


def edit_request(uri, version, text, start, end, new, encoding):
    return {
        "uri": uri,
        "version": version,
        "edits": [{"range": {"start": position(text, start, encoding), "end": position(text, end, encoding)}, "text": new}],
    }


# MARK: Scenarios


def scenario_edits(quire, folder):
    """1,000 versioned edits with non-ASCII text, save, exact bytes; stale versions, -32601, -32700."""
    path = os.path.join(folder, "notes.md")
    original = "# Notes\n\nCafé au lait — 東京 🙂\nsecond line\n"
    with open(path, "w", encoding="utf-8") as file:
        file.write(original)
    client = Client(quire, folder)
    check(client.encoding == "utf-16", f"the default encoding is utf-16, not {client.encoding}")
    check("utf-32" in client.info["positionEncodings"], "utf-32 is offered")
    opened = client.request("document/open", {"path": "notes.md"})
    uri, version = opened["uri"], opened["version"]
    check(opened["lineCount"] == 4, f"lineCount {opened['lineCount']}")
    text = original
    pieces = ["é", "東京", "🙂", "ß", "\n", "a", "Ω", "👩‍💻", "x y", "ü\n"]
    generator = random.Random(32)
    for step in range(1000):
        if len(text) > 40 and generator.random() < 0.3:
            start = generator.randrange(0, len(text) - 3)
            end = start + generator.randrange(1, 4)
            new = ""
        else:
            start = end = generator.randrange(0, len(text) + 1)
            new = generator.choice(pieces)
        # Never cut a ZWJ sequence's halves apart from Python's view: code point indexes are
        # whole scalars in every encoding, so any index is a valid position.
        result = client.request("document/edit", edit_request(uri, version, text, start, end, new, client.encoding))
        text = text[:start] + new + text[end:]
        check(result["version"] == version + 1, f"edit {step} gave version {result['version']} after {version}")
        version = result["version"]
    current = client.request("document/text", {"uri": uri})
    check(current["text"] == text, "after 1,000 edits the text is the model's")
    check(current["version"] == version, "the version is the last edit's")
    print(f"1000 edits: version {version}, {len(text.encode('utf-8'))} bytes")

    # A stale version is refused (LSP ContentModified) and changes nothing.
    stale = client.call("document/edit", edit_request(uri, version - 1, text, 0, 0, "STALE", client.encoding))
    check(stale.get("error", {}).get("code") == -32801, f"a stale edit answered {stale}")
    check(client.request("document/text", {"uri": uri})["text"] == text, "the stale edit changed nothing")
    print("stale version refused: -32801, " + stale["error"]["message"])

    # Several edits in one request, against one version, as one undo step.
    multi = {
        "uri": uri,
        "version": version,
        "edits": [
            {"range": {"start": position(text, 0, client.encoding), "end": position(text, 0, client.encoding)}, "text": "«"},
            {"range": {"start": position(text, len(text), client.encoding), "end": position(text, len(text), client.encoding)}, "text": "»"},
        ],
    }
    version = client.request("document/edit", multi)["version"]
    check(client.request("document/text", {"uri": uri})["text"] == "«" + text + "»", "two edits in one request apply")
    version = client.request("document/undo", {"uri": uri})["version"]
    changed = client.notification("document/didChange", lambda p: p["version"] == version)
    check(changed["cause"] == "undo", "undo is told as a change")
    check(client.request("document/text", {"uri": uri})["text"] == text, "one undo takes both edits back")

    # Unknown methods and bad JSON are answered, and the session goes on.
    unknown = client.call("document/fly", {"uri": uri})
    check(unknown.get("error", {}).get("code") == -32601, f"an unknown method answered {unknown}")
    body = b'{"jsonrpc": "2.0", "id": 99, "method": '
    client.send_raw(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    bad = client.answer(99)
    check(bad.get("error", {}).get("code") == -32700 and bad.get("id") is None, f"bad JSON answered {bad}")
    params = client.call("document/lines", {"uri": uri, "start": "one"})
    check(params.get("error", {}).get("code") == -32602, f"bad params answered {params}")
    missing = client.call("document/open", {"path": "nowhere.md"})
    check(missing.get("error", {}).get("data", {}).get("quireCode") == "file missing", f"a missing file answered {missing}")
    fifo = os.path.join(folder, "pipe.md")
    os.mkfifo(fifo)
    special = client.call("document/open", {"path": "pipe.md"})
    check("error" in special and "regular file" in special["error"]["message"], f"a FIFO answered {special}")
    print("-32601, -32700, -32602 answered; the session goes on")

    saved = client.request("document/save", {"uri": uri})
    check(saved["version"] == version, "save answers the version")
    with open(path, "rb") as file:
        on_disk = file.read()
    check(on_disk == text.encode("utf-8"), "the file's bytes are the expected text")
    print(f"saved: {len(on_disk)} bytes equal the expected text")
    check(client.stop() == 0, "shutdown then exit ends with 0")


def scenario_conflict(quire, folder):
    """A second process's save reaches the client as didChange; then unsaved edits make save refuse."""
    path = os.path.join(folder, "shared.txt")
    with open(path, "w", encoding="utf-8") as file:
        file.write("one\ntwo\nthree\n")
    first = Client(quire, folder)
    second = Client(quire, folder, encoding="utf-8")
    uri = first.request("document/open", {"path": path})["uri"]
    other = second.request("document/open", {"path": "shared.txt"})
    text = "one\ntwo\nthree\n"
    second.request("document/edit", edit_request(other["uri"], other["version"], text, 4, 7, "deux", "utf-8"))
    second.request("document/save", {"uri": other["uri"]})
    changed = first.notification("document/didChange", lambda p: p["uri"] == uri)
    check(changed["cause"] == "reload", f"the change was a reload: {changed}")
    edit = changed["edits"][0]
    check(edit["text"] == "one\ndeux\nthree\n", f"didChange carries the new text: {changed}")
    check(edit["range"]["start"] == {"line": 0, "character": 0}, "the change starts at the top")
    check(edit["range"]["end"] == {"line": 3, "character": 0}, f"the change replaces the old text to its end: {edit}")
    version = changed["version"]
    check(first.request("document/text", {"uri": uri})["text"] == "one\ndeux\nthree\n", "the client's document has the new text")
    print(f"didChange from the other process: version {version}")

    # Unsaved edits here, then the other process saves again: save refuses, naming the conflict.
    mine = first.request("document/edit", edit_request(uri, version, "one\ndeux\nthree\n", 0, 3, "uno", first.encoding))["version"]
    theirs_text = "one\ndeux\nthree\n"
    current = second.request("document/text", {"uri": other["uri"]})
    check(current["text"] == theirs_text, "the second process has its own saved text")
    second.request(
        "document/edit",
        edit_request(other["uri"], current["version"], theirs_text, len(theirs_text), len(theirs_text), "four\n", "utf-8"),
    )
    second.request("document/save", {"uri": other["uri"]})
    conflict = first.notification("document/didConflict", lambda p: p["uri"] == uri)
    check("four" in conflict.get("theirs", ""), f"didConflict carries their version: {conflict}")
    refused = first.call("document/save", {"uri": uri})
    error = refused.get("error", {})
    check(error.get("code") == -32803 and "Conflict" in error.get("message", ""), f"save with a conflict answered {refused}")
    check(error.get("data", {}).get("file") == path, "the error names the file")
    with open(path, encoding="utf-8") as file:
        check(file.read() == "one\ndeux\nthree\nfour\n", "the refused save wrote nothing")
    print("save refused: " + error["message"])
    merged = first.request("document/merge", {"uri": uri})
    check(merged["conflicts"] == 0 and merged["version"] > mine, f"merge: {merged}")
    first.request("document/save", {"uri": uri})
    with open(path, encoding="utf-8") as file:
        check(file.read() == "uno\ndeux\nthree\nfour\n", "the merged text is saved")
    print("merged and saved: both edits kept")
    check(first.stop() == 0 and second.stop() == 0, "both sessions end cleanly")


def scenario_encodings(quire, folder):
    """utf-8, utf-16 and utf-32 positions give the same edit on a line of Japanese and an emoji."""
    line = "日本語のテキスト🙂と絵文字👍です\n"
    results = {}
    for encoding in ["utf-8", "utf-16", "utf-32"]:
        name = f"line-{encoding}.txt"
        with open(os.path.join(folder, name), "w", encoding="utf-8") as file:
            file.write("first\n" + line)
        client = Client(quire, folder, encoding=encoding)
        check(client.encoding == encoding, f"{encoding} was chosen, not {client.encoding}")
        opened = client.request("document/open", {"path": name})
        text = "first\n" + line
        # Replace "絵文字👍" (after the first emoji) with "顔文字😀", and insert "!" at the line's end.
        start = text.index("絵文字👍")
        request = edit_request(opened["uri"], opened["version"], text, start, start + 4, "顔文字😀", encoding)
        print(f"{encoding}: replace {request['edits'][0]['range']}")
        version = client.request("document/edit", request)["version"]
        end = text.index("です") + 2
        edited = text[:start] + "顔文字😀" + text[start + 4 :]
        end = edited.index("です") + 2
        client.request("document/edit", edit_request(opened["uri"], version, edited, end, end, "!", encoding))
        # A position inside a character is refused (utf-16: between an emoji's surrogates;
        # utf-8: inside a kana's bytes).
        if encoding != "utf-32":
            inside = position(edited, edited.index("🙂"), encoding)
            inside["character"] += 1
            bad = client.call(
                "document/edit",
                {"uri": opened["uri"], "version": version + 1, "edits": [{"range": {"start": inside, "end": inside}, "text": "x"}]},
            )
            check(bad.get("error", {}).get("code") == -32602, f"{encoding}: a position inside a character answered {bad}")
        client.request("document/save", {"uri": opened["uri"]})
        with open(os.path.join(folder, name), "rb") as file:
            results[encoding] = file.read()
        check(client.stop() == 0, "the session ends cleanly")
    expected = ("first\n" + "日本語のテキスト🙂と顔文字😀です!\n").encode("utf-8")
    for encoding, data in results.items():
        check(data == expected, f"{encoding} gave {data!r}")
    print("utf-8, utf-16 and utf-32 gave the same bytes")


def scenario_recovery(quire, folder):
    """Closing or stopping with unsaved edits keeps them in recovery; the next open offers them."""
    path = os.path.join(folder, "draft.md")
    with open(path, "w", encoding="utf-8") as file:
        file.write("draft\n")
    client = Client(quire, folder)
    opened = client.request("document/open", {"path": "draft.md"})
    client.request("document/edit", edit_request(opened["uri"], opened["version"], "draft\n", 6, 6, "unsaved ünïcode\n", client.encoding))
    client.request("document/close", {"uri": opened["uri"]})
    again = client.request("document/open", {"path": "draft.md"})
    check("recovered" in again, f"the next open offers the kept edits: {again}")
    check(client.request("document/text", {"uri": again["uri"]})["text"] == "draft\n", "the file's text until restored")
    client.request("document/recover", {"uri": again["uri"]})
    check(client.request("document/text", {"uri": again["uri"]})["text"] == "draft\nunsaved ünïcode\n", "restored")
    # Stopped by SIGTERM with unsaved edits: kept too.
    text = "draft\nunsaved ünïcode\n"
    current = client.request("document/text", {"uri": again["uri"]})
    client.request("document/edit", edit_request(again["uri"], current["version"], text, 0, 0, "more ", client.encoding))
    client.process.terminate()
    check(client.process.wait(timeout=PATIENCE) == 0, "SIGTERM ends the session with 0")
    with open(path, encoding="utf-8") as file:
        check(file.read() == "draft\n", "nothing was saved to the file")
    later = Client(quire, folder)
    reopened = later.request("document/open", {"path": "draft.md"})
    check("recovered" in reopened, "after SIGTERM the next open offers the edits")
    with open(reopened["recovered"]["path"], encoding="utf-8") as file:
        check(file.read() == "more draft\nunsaved ünïcode\n", "the recovery file holds the last text")
    print("close and SIGTERM kept the unsaved edits; the next open offered them")
    check(later.stop() == 0, "the session ends cleanly")


def scenario_oversized(quire, folder):
    """A frame over 64 MiB is refused without being read into memory; the session goes on."""
    client = Client(quire, folder)
    size = 80 << 20
    client.send_raw(b"Content-Length: %d\r\n\r\n" % size)
    chunk = b"x" * (1 << 20)
    for _ in range(size >> 20):
        client.send_raw(chunk)
    refused = client.answer(None)
    check(refused.get("error", {}).get("code") == -32600, f"the big frame answered {refused}")
    with open(f"/proc/{client.process.pid}/status") as status:
        peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    check(peak < 64 * 1024, f"peak memory {peak} KiB: the frame was kept")
    check(client.call("initialize", {}).get("result") is not None, "the session goes on")
    print(f"an 80 MiB frame refused: {refused['error']['message']} (peak memory {peak // 1024} MiB)")
    check(client.stop() == 0, "the session ends cleanly")


def scenario_search(quire, folder):
    """A search keeps the folder's index current for the session: `quire search` in another
    process answers from it, a file written later is found without another walk, and once the
    session ends searches walk again."""
    notes = os.path.join(folder, "notes")
    os.makedirs(notes)
    with open(os.path.join(notes, "zoo.md"), "w", encoding="utf-8") as file:
        file.write("# Zoo\n\nthe walrus sleeps\n")
    client = Client(quire, folder)
    hits = client.request("search", {"query": "walrus", "folder": notes})["hits"]
    check([os.path.basename(hit["url"]) for hit in hits] == ["zoo.md"], f"the first search finds zoo.md: {hits}")
    other = subprocess.run([quire, "search", "--in", notes, "walrus"], capture_output=True, text=True, cwd=folder)
    keeper = f"answered from the index that process {client.process.pid} keeps current"
    check(other.returncode == 0 and "zoo.md: line 3" in other.stdout, f"quire search: {other.stdout} {other.stderr}")
    check(keeper in other.stderr, f"quire search answered from the session's index: {other.stderr}")
    with open(os.path.join(notes, "okapi.md"), "w", encoding="utf-8") as file:
        file.write("an okapi arrives\n")
    deadline = time.monotonic() + PATIENCE
    while True:
        found = client.request("search", {"query": "okapi", "folder": notes})["hits"]
        if [os.path.basename(hit["url"]) for hit in found] == ["okapi.md"]:
            break
        check(time.monotonic() < deadline, "the new file was never indexed")
        time.sleep(0.05)
    check(client.stop() == 0, "the session ends cleanly")
    after = subprocess.run([quire, "search", "--in", notes, "okapi"], capture_output=True, text=True, cwd=folder)
    check(after.returncode == 0 and "okapi.md: line 1" in after.stdout, f"quire search after the session: {after.stdout} {after.stderr}")
    check("answered from the index" not in after.stderr, f"no process keeps the index once the session ended: {after.stderr}")
    print("the session's index answered quire search, took a new file and was let go at the end")


def scenario_bench(quire, folder, count=10000):
    """10,000 single-character versioned edits on a 1 MiB text, one round trip each."""
    path = os.path.join(folder, "big.txt")
    line = "The quick brown fox jumps over the lazy dog, 0123456789 abcdefghij.\n"
    text = line * ((1 << 20) // len(line))
    with open(path, "w") as file:
        file.write(text)
    client = Client(quire, folder, encoding="utf-32")
    opened = client.request("document/open", {"path": path})
    uri, version = opened["uri"], opened["version"]
    lines = text.count("\n")
    started = time.perf_counter()
    for step in range(count):
        where = {"line": (step * 7919) % lines, "character": step % 60}
        result = client.request("document/edit", {"uri": uri, "version": version, "edits": [{"range": {"start": where, "end": where}, "text": "x"}]})
        version = result["version"]
    elapsed = time.perf_counter() - started
    client.stop()
    print(json.dumps({"peer": "quire rpc", "edits": count, "seconds": elapsed, "microsecondsPerEdit": elapsed / count * 1e6}))


def scenario_bench_nvim(quire, folder, count=10000, read_tick=True):
    """The same edits through Neovim's --embed API (pynvim): nvim_buf_set_text, then (with
    read_tick) the changedtick read back, as a client that checks the version it edits."""
    import pynvim

    path = os.path.join(folder, "big-nvim.txt")
    line = "The quick brown fox jumps over the lazy dog, 0123456789 abcdefghij.\n"
    text = line * ((1 << 20) // len(line))
    with open(path, "w") as file:
        file.write(text)
    nvim = pynvim.attach("child", argv=["nvim", "--embed", "--headless", "--clean", "-n", path])
    buffer = nvim.current.buffer
    lines = text.count("\n")
    started = time.perf_counter()
    for step in range(count):
        row = (step * 7919) % lines
        column = step % 60
        # nvim_buf_set_text: one versioned-by-changedtick edit; the tick is read back each time,
        # as a client that checks the version it edits would.
        buffer.api.set_text(row, column, row, column, ["x"])
        if read_tick:
            nvim.request("nvim_buf_get_changedtick", buffer)
    elapsed = time.perf_counter() - started
    nvim.command("write")
    nvim.close()
    peer = "nvim --embed (pynvim)" + ("" if read_tick else ", set_text only")
    print(json.dumps({"peer": peer, "edits": count, "seconds": elapsed, "microsecondsPerEdit": elapsed / count * 1e6}))


SCENARIOS = {
    "edits": scenario_edits,
    "conflict": scenario_conflict,
    "encodings": scenario_encodings,
    "recovery": scenario_recovery,
    "oversized": scenario_oversized,
    "bench": scenario_bench,
    "search": scenario_search,
    "bench-nvim": scenario_bench_nvim,
    "bench-nvim-set-text": lambda quire, folder, count=10000: scenario_bench_nvim(quire, folder, count, read_tick=False),
}

if __name__ == "__main__":
    name, quire, folder = sys.argv[1], sys.argv[2], sys.argv[3]
    try:
        SCENARIOS[name](quire, folder)
    except Failure as failure:
        print(f"FAIL: {failure}")
        sys.exit(1)
    print("OK")
