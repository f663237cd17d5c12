#!/usr/bin/env python3
"""Type-checks real open-source client code of Apple's document frameworks against Quire.

Each file listed in sources.json (repository, path, commit) is read from the corpus folder
(default: $XDG_CACHE_HOME/quire-apple-corpus, else ~/.cache/quire-apple-corpus; the code
itself never enters this repository). A missing file is fetched from
raw.githubusercontent.com at the recorded commit when the network allows.

The way a client ports it: Apple-only imports (UIKit, AppKit, Cocoa, PDFKit, Quartz,
UniformTypeIdentifiers, MobileCoreServices, CoreServices, Combine, SwiftUI, OSLog, os) become
`import Quire` (also put on the first line, since an Apple import under `#if os(iOS)` is
false on Linux), `canImport(UIKit)`/`canImport(AppKit)` become true, and the file is checked
with `swiftc -typecheck -swift-version 5 -I MODULES` (Swift 5 mode: most of this code predates
strict concurrency).

Third-party modules a file imports (not Apple's, not here) are stubbed with an empty module of
the same name, the same way on every run, so the file's own use of Apple's API is checked;
what it used from the module is then missing and classed "other".

Every error gets one class (classify(); the rule is also in Benchmarks/RESULTS.md):
- framework: it names one of the frameworks' types or members (FRAMEWORK_WORDS, and Quire's
  names behind Apple's typealiases). When the compiler names what is missing (`cannot find
  'X'`, `type 'T' has no member 'm'`), those names alone decide: `cannot find 'path'` on a line
  that also names FileWrapper is the file's own `path`, not FileWrapper's; a member missing on a
  framework type, or on the file's own subclass or extension of one, is the framework's. An
  override the superclass lacks decides by the member the line declares when the enclosing
  class is a framework class. Other errors: the message or the source line names a framework
  word (the first version's rule).
- old-spelling: a pre-Swift-4 spelling Apple renamed and Apple's current SDKs reject too
  (OLD_SPELLINGS, with the current spelling). Each current spelling is type-checked against
  Quire on every run (a probe); when its probe fails the old spelling counts as framework.
- objc: "Objective-C interoperability is disabled" (`@objc`): Swift on Linux has no
  Objective-C runtime; no library can supply it.
- ui: a member of a framework class that is Apple's user interface (its words include window,
  nib, view, menu, gesture, storyboard: NSDocument's window controllers), which Linux lacks
  and the issue leaves out.
- other: everything else: the app's own or third-party types, views and images, the language.
A file is free when it has no framework error. The summary also gives the first version's
figure (any error whose message or line names a framework word counts; a file importing a
missing third-party module is not checked and counts as not free) and the files free only by
the classification. --self-test checks the classifier on errors whose class is known.

Prints one line per file and a summary, for the first 28 files and for all (entries with an
"extension" key were added by the extension rule in Benchmarks/RESULTS.md); --verbose lists
every error that is not "other"; --json prints JSON.

Usage: typecheck.py [--modules DIR] [--corpus DIR] [--json] [--verbose] [--self-test]
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
    # Always at the top too: an Apple import inside `#if os(iOS)` (false on Linux) would leave
    # the file without Apple's names, which a client porting it would not do.
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


# Spellings of these frameworks' API from before Swift 4 that Apple renamed and that Apple's
# current SDKs reject as well (SE-0005 "Better Translation of Objective-C APIs Into Swift" and
# SE-0086 "Drop NS Prefix in Swift Foundation" in Swift 3; NSDocument's autosavesInPlace became a
# class property in the macOS 10.13 SDK). Each entry: the old spelling as the compiler or the
# source line shows it, the current spelling, and a probe: code that uses the current spelling.
# The probes are type-checked against Quire on every run; an entry whose probe fails is not
# excused (its errors count as framework errors), so only names whose current form Quire has
# are classed as old spellings.
OLD_SPELLINGS = {
    "NSUndoManager": ("UndoManager (Swift 3, SE-0086)",
                      "@MainActor func probe() { let manager: UndoManager = UndoManager(); manager.registerUndo(withTarget: manager) { _ in } }"),
    "registerUndoWithTarget": ("registerUndo(withTarget:handler:) (Swift 3, SE-0005)",
                               "@MainActor func probe(_ manager: UndoManager) { manager.registerUndo(withTarget: manager) { _ in } }"),
    "dataOfType": ("data(ofType:) throws (Swift 3, SE-0005; NSErrorPointer became throws in Swift 2's import)",
                   "class Probe: NSDocument { override func data(ofType typeName: String) throws -> Data { Data() } }"),
    "readFromData": ("read(from:ofType:) throws (Swift 3, SE-0005)",
                     "class Probe: NSDocument { override func read(from data: Data, ofType typeName: String) throws {} }"),
    "func autosavesInPlace(": ("class var autosavesInPlace (macOS 10.13 SDK)",
                               "class Probe: NSDocument { override class var autosavesInPlace: Bool { true } }"),
    "NSItemProviderCompletionHandler": ("NSItemProvider.CompletionHandler (Swift 3)",
                                        "let probe: NSItemProvider.CompletionHandler? = nil"),
    "loadItemForTypeIdentifier": ("loadItem(forTypeIdentifier:options:completionHandler:) (Swift 3, SE-0005)",
                                  "func probe(_ provider: NSItemProvider) { provider.loadItem(forTypeIdentifier: \"public.text\", options: nil) { _, _ in } }"),
    "loadPreviewImageWithOptions": ("loadPreviewImage(options:completionHandler:) (Swift 3, SE-0005)",
                                    "func probe(_ provider: NSItemProvider) { provider.loadPreviewImage(options: [:]) { _, _ in } }"),
}

# Words of a missing member or type that make it Apple's user interface (windows, nibs, views,
# menus, gestures), which Linux does not have and the issue leaves out (see the porting guide).
UI_WORDS = {"window", "windows", "nib", "view", "views", "storyboard", "segue", "menu", "gesture", "responder"}

# Quire's own names behind Apple's typealiases: the compiler reports those (an error about
# `NSItemProvider` says `ItemProvider`).
QUIRE_NAMES = ["ItemProvider", "Document", "Pasteboard", "FileCoordinator", "FilePresenter", "FileVersion", "TypeRegistry"]


def words(name):
    return {word.lower() for word in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])", name)}


def names_framework(text):
    return any(word in text for word in FRAMEWORK_WORDS)


def framework_types_of_file(source):
    """The file's own types that are framework types by inheritance (`class Doc: UIDocument`,
    `extension NSFileVersion`): an error about a member missing on one is about the framework."""
    names = set()
    for match in re.finditer(r"\b(?:class|struct|enum|extension|protocol)\s+(?!(?:var|let|func|subscript)\b)(\w+)\s*(?::\s*([^{]+))?\{", source):
        name, inherits = match.group(1), match.group(2) or ""
        if names_framework(name) or names_framework(inherits) or any(quire in inherits for quire in QUIRE_NAMES):
            names.add(name)
    return names


def enclosing_type(source_lines, number):
    """The name of the class, struct or extension a line is in (the nearest one declared above it)."""
    for text in reversed(source_lines[:number]):
        match = re.match(r"^\s*(?:[@\w]+\s+)*(?:class|struct|enum|extension)\s+(?!(?:var|let|func|subscript)\b)(\w+)", text)
        if match:
            return match.group(1)
    return None


def classify(message, text, framework_types, probes, enclosing=None):
    """One error's class: "framework" (names one of the frameworks' types or members, as
    Quire should have them), "old-spelling" (a pre-Swift-4 spelling Apple's current SDK rejects
    too, whose current form Quire has), "objc" (Objective-C interoperability, which Swift on
    Linux does not have), "ui" (a member of a framework type that is Apple's user interface),
    or "other" (the app's own or a third-party type, views, images, the Swift language).

    The rule: when the compiler names what is missing (`cannot find 'X'`, `type 'T' has no
    member 'm'`), those names alone decide, not the rest of the line; otherwise the message
    and the source line decide, as in the first version of this script."""
    if "Objective-C interoperability is disabled" in message:
        return "objc"
    for old, (_, probe_ok) in probes.items():
        pattern = re.escape(old) if not old[0].isalpha() or not old[-1].isalnum() else r"\b" + re.escape(old) + r"\b"
        if re.search(pattern, message) or (not re.search(r"'[^']+'", message) and re.search(pattern, text)):
            return "old-spelling" if probe_ok else "framework"
    if re.match(r"^(method|property|initializer|subscript) does not override any", message):
        # An override of a subclassing point the class's framework superclass lacks: decided
        # by the member the line declares, when the class is a framework class.
        declared = re.search(r"\b(?:func|var|let)\s+(\w+)", text)
        if enclosing in framework_types and declared:
            return "ui" if words(declared.group(1)) & UI_WORDS else "framework"
    missing = re.match(r"^cannot find (?:type )?'([^']+)' in scope", message)
    if missing:
        return "framework" if names_framework(missing.group(1)) else "other"
    member = re.match(r"^(?:type|value of type|value of optional type) '([^']+)' has no member '([^']+)'", message)
    if member:
        owner, name = member.group(1).rstrip("?!"), member.group(2)
        framework_owner = names_framework(owner) or owner in QUIRE_NAMES or owner in framework_types
        if framework_owner and words(name) & UI_WORDS:
            return "ui"
        return "framework" if framework_owner or names_framework(name) else "other"
    return "framework" if names_framework(message) or names_framework(text) else "other"


def classify_strict(message, text):
    """The first version's rule, kept to report both numbers: any error whose message or
    source line names a framework word."""
    return "framework" if names_framework(message) or names_framework(text) else "other"


def swiftc(file, modules, extra=()):
    includes = [flag for folder in module_map_folders(modules) for flag in ("-I", folder)] + c_flags()
    run = subprocess.run(["swiftc", "-typecheck", "-swift-version", "5", "-diagnostic-style", "llvm", "-I", modules] + list(extra) + includes + [file],
                         capture_output=True, text=True)
    return run.stdout + run.stderr


def check_probes(modules):
    """Type-checks each old spelling's probe (its current form) against Quire."""
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        for old, (_, probe) in OLD_SPELLINGS.items():
            file = os.path.join(folder, "probe.swift")
            with open(file, "w") as out:
                out.write("import Quire\n" + probe + "\n")
            output = swiftc(file, modules)
            results[old] = (OLD_SPELLINGS[old][0], ": error:" not in output)
    return results


def stub_module(name, folder):
    """An empty module named `name` (a third-party module that is not here), so the file's own
    code is checked; what it used from the module is then missing, and classed as such."""
    source = os.path.join(folder, f"{name}_stub.swift")
    with open(source, "w") as out:
        out.write("// empty stand-in for a third-party module\n")
    subprocess.run(["swiftc", "-emit-module", "-parse-as-library", "-module-name", name, "-o", os.path.join(folder, f"{name}.swiftmodule"), source],
                   capture_output=True, text=True, check=True)


def check(path, modules, probes):
    with open(path, encoding="utf-8", errors="replace") as handle:
        source = ported(handle.read())
    stubbed = []
    with tempfile.TemporaryDirectory() as folder:
        file = os.path.join(folder, os.path.basename(path))
        with open(file, "w") as out:
            out.write(source)
        stubs = os.path.join(folder, "stubs")
        os.makedirs(stubs)
        while True:
            output = swiftc(file, modules, ["-I", stubs])
            missing = [name for name in re.findall(r"error: no such module '([^']+)'", output) if name not in stubbed]
            if not missing:
                break
            for name in missing:
                stub_module(name, stubs)
                stubbed.append(name)
    source_lines = source.splitlines()
    framework_types = framework_types_of_file(source)
    errors = []
    for line in output.splitlines():
        match = re.match(r"^(.*?):(\d+):\d+: error: (.*)$", line)
        if not match:
            if "error:" in line:  # an error with no place
                errors.append({"line": 0, "message": line, "class": "other", "strict": "other"})
            continue
        message = match.group(3)
        number = int(match.group(2))
        text = source_lines[number - 1] if number <= len(source_lines) else ""
        errors.append({"line": number, "message": message,
                       "class": classify(message, text, framework_types, probes, enclosing_type(source_lines, number)),
                       "strict": classify_strict(message, text)})
    return {"errors": errors, "stubbed": stubbed}


CLASSES = ["framework", "old-spelling", "objc", "ui", "other"]


def self_test():
    """The classifier on errors whose class is known, framework errors first: a rule that let
    one of those through as not-framework would fail here."""
    ok = {old: (current, True) for old, (current, _) in OLD_SPELLINGS.items()}
    missing_probe = {old: (current, False) for old, (current, _) in OLD_SPELLINGS.items()}
    cases = [
        ("framework", "value of type 'NotesDocument' has no member 'fileModificationDate'", "if doc.fileModificationDate == nil {", {"NotesDocument"}, ok, None),
        ("framework", "cannot find 'NSFileAccessIntent' in scope", "let intent = NSFileAccessIntent.readingIntent(with: url)", set(), ok, None),
        ("framework", "value of type 'ItemProvider' has no member 'loadInPlaceFileRepresentation'", "provider.loadInPlaceFileRepresentation(x)", set(), ok, None),
        ("framework", "method does not override any method from its superclass", "override func contents(forType typeName: String) throws -> Any {",
         {"NotesDocument"}, ok, "NotesDocument"),
        ("framework", "missing argument label 'ofType:' in call", "try doc.read(from: data, typeName)", set(), ok, None),
        ("framework", "cannot find 'NSUndoManager' in scope", "let undoer = NSUndoManager()", set(), missing_probe, None),
        ("old-spelling", "cannot find 'NSUndoManager' in scope", "let undoer = NSUndoManager()", set(), ok, None),
        ("old-spelling", "method does not override any method from its superclass", "override func dataOfType(typeName: String, error outError: NSErrorPointer) -> NSData? {",
         {"Document"}, ok, "Document"),
        ("objc", "Objective-C interoperability is disabled", "@objc func presentedSubitemDidChange(at url: URL) {", set(), ok, None),
        ("ui", "value of type 'NSDocument' has no member 'windowControllerDidLoadNib'", "super.windowControllerDidLoadNib(aController)", set(), ok, None),
        ("ui", "method does not override any method from its superclass", "override func makeWindowControllers() {", {"Document"}, ok, "Document"),
        ("other", "type 'PersonNameComponentsFormatter' has no member 'short'", "return PersonNameComponentsFormatter.short.string(from: components)", set(), ok, None),
        ("other", "cannot find 'path' in scope", "return try FileWrapper(url: path.url, options: [])", set(), ok, None),
        ("other", "method does not override any method from its superclass", "override func viewDidLoad() {", {"Document"}, ok, "PDFViewController"),
    ]
    failures = 0
    for expected, message, text, framework_types, probes, enclosing in cases:
        got = classify(message, text, framework_types, probes, enclosing)
        if got != expected:
            failures += 1
            print(f"self-test: {message!r} on {text!r}: expected {expected}, got {got}")
    print(f"self-test: {len(cases) - failures} of {len(cases)} classified as expected")
    return failures == 0


def main():
    arguments = sys.argv[1:]
    if "--self-test" in arguments:
        sys.exit(0 if self_test() else 1)
    corpus, modules = corpus_folder(arguments), modules_folder(arguments)
    os.makedirs(corpus, exist_ok=True)
    with open(os.path.join(HERE, "sources.json")) as handle:
        sources = json.load(handle)
    probes = check_probes(modules)
    results = []
    for entry in sources:
        target = os.path.join(corpus, entry["file"])
        if not os.path.exists(target):
            fetch(entry, target)
        outcome = check(target, modules, probes)
        outcome.update(file=entry["file"], repo=entry["repo"], path=entry["path"], extension="extension" in entry)
        outcome["counts"] = {name: sum(1 for error in outcome["errors"] if error["class"] == name) for name in CLASSES}
        outcome["free"] = outcome["counts"]["framework"] == 0
        # The first version's figure: a file that imports a missing third-party module is not
        # checked (not free), and any error whose message or line names a framework word counts.
        outcome["strictFree"] = not outcome["stubbed"] and not any(error["strict"] == "framework" for error in outcome["errors"])
        results.append(outcome)
    groups = [("the first 28 files", [r for r in results if not r["extension"]]), ("all files", results)]
    summary = []
    for label, group in groups:
        free = sum(1 for result in group if result["free"])
        strict = sum(1 for result in group if result["strictFree"])
        summary.append({
            "group": label, "files": len(group), "free": free, "strictFree": strict,
            "frameworkErrors": sum(result["counts"]["framework"] for result in group),
            "stubbed": sum(1 for result in group if result["stubbed"]),
            # The same count with fewer classes excused, to show what each class decides.
            "freeCountingOldSpellings": sum(1 for r in group if r["counts"]["framework"] + r["counts"]["old-spelling"] == 0),
            "freeCountingOldSpellingsObjcUI": sum(1 for r in group if sum(r["counts"][name] for name in CLASSES if name != "other") == 0),
            "noErrorAtAll": sum(1 for r in group if not r["errors"]),
            "freeOnlyByClassification": [result["file"] for result in group if result["free"] and not result["strictFree"]],
            "errorsByClass": {name: sum(result["counts"][name] for result in group) for name in CLASSES},
        })
    if "--json" in arguments:
        print(json.dumps({"probes": {old: {"current": current, "quireHasIt": ok} for old, (current, ok) in probes.items()},
                          "summary": summary, "results": results}, indent=1))
        return
    for old, (current, ok) in probes.items():
        if not ok:
            print(f"probe failed: Quire lacks {current} (the current form of {old}); its old spelling counts as a framework error")
    for result in results:
        state = "free" if result["free"] else "errors"
        counts = " ".join(f"{name} {result['counts'][name]}" for name in CLASSES)
        stubbed = f"  (stubbed: {', '.join(result['stubbed'])})" if result["stubbed"] else ""
        print(f"{state:6} [{counts}]  {result['repo']}/{result['path']}{stubbed}")
        for error in result["errors"]:
            if error["class"] == "framework" or "--verbose" in arguments and error["class"] != "other":
                print(f"           - {error['class']}: line {error['line']}: {error['message']}")
    for item in summary:
        print(f"{item['group']}: {item['free']} of {item['files']} files ({100 * item['free'] / item['files']:.0f}%) free of framework errors "
              f"({item['frameworkErrors']} framework errors; {item['stubbed']} import a third-party module, stubbed empty); "
              f"by the first version's rule {item['strictFree']} of {item['files']} ({100 * item['strictFree'] / item['files']:.0f}%); "
              f"errors by class: " + ", ".join(f"{name} {count}" for name, count in item["errorsByClass"].items()))
        print(f"  with old spellings counted as framework errors: {item['freeCountingOldSpellings']} free; with objc and ui too: "
              f"{item['freeCountingOldSpellingsObjcUI']}; files with no error at all: {item['noErrorAtAll']}")


if __name__ == "__main__":
    main()
