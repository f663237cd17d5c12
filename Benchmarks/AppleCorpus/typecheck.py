#!/usr/bin/env python3
"""Type-checks real open-source client code of Apple's document frameworks against Quire.

Each file listed in sources.json (repository, path, commit) is read from the corpus folder
(default: $XDG_CACHE_HOME/quire-apple-corpus, else ~/.cache/quire-apple-corpus; the code
itself never enters this repository). A missing file is fetched from
raw.githubusercontent.com at the recorded commit when the network allows.

The way a client ports it: Apple-only imports (UIKit, AppKit, Cocoa, PDFKit, Quartz,
UniformTypeIdentifiers, MobileCoreServices, CoreServices, Combine, SwiftUI, OSLog, os) become
`import Quire`, `canImport(UIKit)`/`canImport(AppKit)` become true, and the file is checked
with `swiftc -typecheck -swift-version 5 -I MODULES` (Swift 5 mode: most of this code predates
strict concurrency).

An error is a framework error when its message or its source line names one of the frameworks'
types or members (see FRAMEWORK_WORDS); errors about views, images and the app's own types
are not. A file that cannot be checked at all (a third-party module it imports is missing)
counts as not free. Prints one line per file and a summary, for the first 28 files and for all
(entries with an "extension" key were added by the extension rule in Benchmarks/RESULTS.md);
--json prints JSON.

Usage: typecheck.py [--modules DIR] [--corpus DIR] [--json]
"""
import json, os, re, subprocess, sys, tempfile, urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
APPLE_MODULES = ["UIKit", "AppKit", "Cocoa", "PDFKit", "Quartz", "UniformTypeIdentifiers", "MobileCoreServices",
                 "CoreServices", "Combine", "SwiftUI", "OSLog", "os"]
FRAMEWORK_WORDS = [
    "UIDocument", "NSDocument", "UndoManager", "NSFileCoordinator", "NSFilePresenter", "NSFileVersion", "FileWrapper",
    "UTType", "NSItemProvider", "UIPasteboard", "PDFDocument", "PDFPage", "PDFOutline", "PDFSelection",
    "NSFileAccessIntent", "NSErrorPointer", "contents(forType", "load(fromContents", "data(ofType", "read(from",
    "fileWrapper(ofType", "autosavesInPlace", "presentedItem", "presentedSubitem", "relinquishPresentedItem",
    "savePresentedItemChanges", "accommodatePresented", "addFilePresenter", "removeFilePresenter", "coordinate(",
    "registerUndo", "setActionName", "documentState", "fileURL", "updateChangeCount", "revert(toContentsOf",
    "loadItem(", "loadObject(", "loadFileRepresentation", "loadDataRepresentation", "canLoadObject", "findString",
    "page(at", "pageCount", "dataRepresentation", "documentURL", "fileWrappers", "regularFileContents",
    "preferredFilename", "addRegularFile", "preferredMIMEType", "preferredFilenameExtension", "replaceItem",
    "isResolved", ".general", ".string",
]


def corpus_folder(arguments):
    if "--corpus" in arguments:
        return arguments[arguments.index("--corpus") + 1]
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return os.path.join(cache, "quire-apple-corpus")


def modules_folder(arguments):
    if "--modules" in arguments:
        return arguments[arguments.index("--modules") + 1]
    return os.path.abspath(os.path.join(HERE, "..", "..", ".build", "debug", "Modules"))


def fetch(entry, target):
    if not entry.get("commit"):  # taken from the code search's text; no commit is known for it
        raise SystemExit(f"typecheck: {target} is missing and {entry['repo']}/{entry['path']} has no recorded commit ({entry.get('note', '')}). Put the file there.")
    url = f"https://raw.githubusercontent.com/{entry['repo']}/{entry['commit']}/{entry['path']}"
    try:
        with urllib.request.urlopen(url, timeout=20) as response:
            data = response.read()
    except Exception as error:  # no network: say which file is missing
        raise SystemExit(f"typecheck: {target} is missing and {url} cannot be fetched ({error}). Put the file there.")
    with open(target, "wb") as out:
        out.write(data)


def ported(text):
    lines = []
    for line in text.splitlines():
        match = re.match(r"^\s*(@_exported\s+|@preconcurrency\s+)?import\s+(\w+)\s*$", line)
        if match and match.group(2) in APPLE_MODULES:
            lines.append("import Quire")
        else:
            lines.append(line.replace("canImport(UIKit)", "true").replace("canImport(AppKit)", "true"))
    if not any(line.strip() == "import Quire" for line in lines):
        lines.insert(0, "import Quire")
    return "\n".join(lines) + "\n"


def module_map_folders(modules):
    """The folders of the C module maps the Quire modules were built with (a client's build
    has them the same way): the package's own shims and its dependencies' (swift-system)."""
    package = os.path.realpath(modules)
    while os.path.basename(package) != ".build" and package != "/":
        package = os.path.dirname(package)
    package = os.path.dirname(package)
    folders = []
    for root in [os.path.join(package, "Sources"), os.path.join(package, ".build", "checkouts")]:
        for folder, _, names in os.walk(root):
            if "module.modulemap" in names:
                folders.append(folder)
    build = os.path.dirname(os.path.realpath(modules))  # C targets' generated maps: debug/NAME.build/
    for name in sorted(os.listdir(build)):
        if os.path.exists(os.path.join(build, name, "module.modulemap")):
            folders.append(os.path.join(build, name))
    return folders


def c_flags():
    """The C header paths of the system libraries behind the shims (pkg-config, as SwiftPM
    passes them), so the shims' module maps load."""
    packages = ["libcmark", "poppler-glib", "pangocairo", "libpng", "libqpdf", "libgit2", "libedit"]
    run = subprocess.run(["pkg-config", "--cflags"] + packages, capture_output=True, text=True)
    return [flag for option in run.stdout.split() for flag in ("-Xcc", option)]


def check(path, modules):
    with open(path, encoding="utf-8", errors="replace") as handle:
        source = ported(handle.read())
    with tempfile.TemporaryDirectory() as folder:
        file = os.path.join(folder, os.path.basename(path))
        with open(file, "w") as out:
            out.write(source)
        includes = [flag for folder in module_map_folders(modules) for flag in ("-I", folder)] + c_flags()
        run = subprocess.run(["swiftc", "-typecheck", "-swift-version", "5", "-diagnostic-style", "llvm", "-I", modules] + includes + [file],
                             capture_output=True, text=True)
    source_lines = source.splitlines()
    framework, other, blocked = [], [], False
    for line in (run.stdout + run.stderr).splitlines():
        match = re.match(r"^(.*?):(\d+):\d+: error: (.*)$", line)
        if not match:
            if "error:" in line:  # an error with no place (a missing module): nothing was checked
                blocked = True
                other.append(line)
            continue
        message = match.group(3)
        if "no such module" in message:
            blocked = True
            other.append(message)
            continue
        text = source_lines[int(match.group(2)) - 1] if int(match.group(2)) <= len(source_lines) else ""
        if any(word in message or word in text for word in FRAMEWORK_WORDS):
            framework.append(message)
        else:
            other.append(message)
    return {"framework": framework, "other": other, "blocked": blocked}


def main():
    arguments = sys.argv[1:]
    corpus, modules = corpus_folder(arguments), modules_folder(arguments)
    os.makedirs(corpus, exist_ok=True)
    with open(os.path.join(HERE, "sources.json")) as handle:
        sources = json.load(handle)
    results = []
    for entry in sources:
        target = os.path.join(corpus, entry["file"])
        if not os.path.exists(target):
            fetch(entry, target)
        outcome = check(target, modules)
        outcome.update(file=entry["file"], repo=entry["repo"], path=entry["path"])
        outcome["free"] = not outcome["framework"] and not outcome["blocked"]
        results.append(outcome)
    free = sum(1 for result in results if result["free"])
    errors = sum(len(result["framework"]) for result in results)
    checkable = sum(1 for result in results if not result["blocked"])
    if "--json" in arguments:
        print(json.dumps({"files": len(results), "checkable": checkable, "free": free, "frameworkErrors": errors, "results": results}, indent=1))
        return
    for result in results:
        state = "free" if result["free"] else ("blocked" if result["blocked"] else "errors")
        print(f"{state:8} {len(result['framework']):3} framework / {len(result['other']):3} other  {result['repo']}/{result['path']}")
        for message in result["framework"][:3]:
            print(f"           - {message}")
    groups = [("the first 28 files", [r for r, e in zip(results, sources) if "extension" not in e]), ("all files", results)]
    for label, group in groups:
        free = sum(1 for result in group if result["free"])
        errors = sum(len(result["framework"]) for result in group)
        checkable = sum(1 for result in group if not result["blocked"])
        print(f"{label}: {free} of {len(group)} files ({100 * free / len(group):.0f}%) free of framework errors; {errors} framework errors in all; "
              f"{free} of {checkable} checkable ({100 * free / max(checkable, 1):.0f}%), {len(group) - checkable} import a third-party module that is not here")


if __name__ == "__main__":
    main()
