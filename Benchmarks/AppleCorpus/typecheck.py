#!/usr/bin/env python3
"""Type-checks real open-source client code of Apple's document frameworks against Quire, the
way a client compiles it: each file as a module of its own, without `@testable`.

Each file listed in sources.json (repository, path, commit) is read from the corpus folder
(default: $XDG_CACHE_HOME/quire-apple-corpus, else ~/.cache/quire-apple-corpus; the code
itself never enters this repository). A missing file is fetched from
raw.githubusercontent.com at the recorded commit when the network allows.

The port (what a client does, nothing more):
- An import of a framework name Quire offers a module for (OFFERED_MODULES: UniformTypeIdentifiers,
  PDFKit, MobileCoreServices, QuickLookThumbnailing) is kept as it is, so the file's qualified
  names (`PDFKit.PDFDocument`) resolve through it. When the modules folder has no module of that
  name, the file gets an error "no such module 'X'" on the import line, counted against Quire,
  and the import becomes `import Quire` so the rest of the file is still checked.
- Other Apple-only imports (UIKit, AppKit, Cocoa, SwiftUI, Quartz, CoreServices, Combine, OSLog,
  os, ...) become `import Quire`; `import Foundation` stays. `import Quire` is also put on the
  first line (an Apple import under `#if os(iOS)` is false on Linux), and `canImport(UIKit)` /
  `canImport(AppKit)` / `canImport(<an offered name>)` become true.
- The file is compiled with `swiftc -typecheck -swift-version 5 -module-name <its own> -I MODULES`
  (Swift 5 mode: most of this code predates strict concurrency). No `@testable`: `open`,
  `public`, `final` and `required` mean what they mean to a client.
- A third-party module the file imports (not Apple's, not here) is stubbed with an empty module
  of that name, so the file's own use of Apple's API is still checked; what it used from that
  module is then missing, and classed "app".

Every error gets one class (classify(); the rule is in Benchmarks/RESULTS.md, issue 28). An
error is "quire" when fixing it needs a change in Quire, whatever the message's words:
- an override or a subclass refused: a non-open class or member, a `final` class, a member
  declared in an extension, "does not override" in a subclass of an Apple class Quire provides
  (the member exists in Apple's class: the file compiled there), initializer requirements
  ("'required' initializer ... must be provided by subclass"), a mutable/read-only mismatch;
- a member or initializer missing on a type Quire provides (or on the file's own subclass or
  extension of one), found through the names of Quire's public API (symbol graphs of the built
  modules);
- an Apple framework name missing (types, functions, constants such as kUTType..., UTTypeConformsTo,
  NSDocumentController): any Apple-looking name (NS/UI/UT/kUT/PDF/QL/CGPDF prefixes, and the
  frameworks' prefix-free names such as UndoManager and FileWrapper) that is not one of the
  classes below;
- a module name absent (`no such module 'PDFKit'`);
- anything else (a conversion, an argument label, an `await` resolving to the completion-handler
  form: "cannot convert value of type '()' to specified type 'Bool'") on a line that names a
  type Quire provides or calls a member of one, or in the body of a subclass of one when the
  line calls a member of the class's Apple superclass.
Not Quire's:
- "objc": `@objc`, selectors and NSInvocation (Swift on Linux has no Objective-C runtime);
- "ui": Apple's user-interface classes Quire does not rebuild (UIView, UIViewController,
  NSWindowController, NSView, storyboards, nibs, gestures, menus, SwiftUI views, PDFView) and
  their members, overrides in their subclasses;
- "platform": Apple frameworks outside these documents (Combine, os, AVFoundation, app
  extensions' NSExtensionItem, CoreGraphics drawing, OSStatus codes), gaps of Linux's
  Foundation in types Quire does not provide, and a Foundation-qualified name
  (`Foundation.UndoManager`: no library can add to Linux's Foundation module);
- "app": the app's own types from other files, third-party modules (stubbed);
- "old-spelling": a pre-Swift-4 spelling Apple's current SDKs reject too (OLD_SPELLINGS), only
  while a probe proves the current spelling compiles against Quire (else it is "quire");
- "language": the rest: Swift language errors that name nothing of Quire's.
Errors that follow from another (CASCADE_MESSAGES: "cannot infer contextual base", "'nil'
requires a contextual type") take the class of an error on the same line or the two above, else
"quire" when a receiver on the line is a variable of a missing Apple type, else, in a class
whose superclass did not resolve, that superclass's class. A compiler exit without a diagnostic
is an unchecked file, counted against Quire. When a rule cannot tell, the error is "quire". A
file is free when it has no "quire" error.

Prints one line per file and a summary (for the first 28 files, the first 46, all); --verbose
lists every error with its class; --json prints JSON; --errors FILE writes the per-file list of
"quire" errors (file, line, message, source line) with an "N of M files free" line on top.
--self-test checks the classifier on errors whose class is known (including issue 28's
examples) without compiling anything; --examples compiles issue 28's own example code (an
UndoManager subclass, a UIDocument subclass with Bool `await` forms, qualified PDFKit and
UniformTypeIdentifiers names, MobileCoreServices' C API, NSDocumentController) and classes its errors.

Usage: typecheck.py [--modules DIR] [--corpus DIR] [--json] [--verbose] [--errors FILE] [--self-test] [--examples]
"""
import glob, json, os, re, subprocess, sys, tempfile, urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
# Apple framework names Quire offers a module of (issue 28): a ported file keeps these imports.
OFFERED_MODULES = ["UniformTypeIdentifiers", "PDFKit", "MobileCoreServices", "QuickLookThumbnailing"]
# Apple-only modules a client replaces with `import Quire` (Foundation stays: Linux has it).
REPLACED_MODULES = ["UIKit", "AppKit", "Cocoa", "Quartz", "CoreServices", "SwiftUI", "Combine", "OSLog", "os",
                    "CoreGraphics", "QuickLook", "Social", "Photos", "PhotosUI", "AVFoundation", "ImageIO", "CoreData",
                    "CloudKit", "LinkPresentation", "WebKit", "SafariServices"]

# The frameworks' names without a telling prefix (the rest are NS*/UI*/UT*/kUT*/PDF*/QL*/CGPDF*).
FRAMEWORK_NAMES = {"UndoManager", "FileWrapper", "FileDocument", "ReferenceFileDocument", "FileDocumentConfiguration",
                   "UTType", "UTTagClass", "CGImage"}
APPLE_PREFIX = re.compile(r"^((NS|UI|PDF|QL|CGPDF|CF|CG)[A-Z]\w*|(UTType|UTTag|kUTType|kUTTag|kUTExported|kUTImported)\w*|CFString|CGImage)$")

# Apple's user-interface names Quire does not rebuild. A name matching UI_PATTERN (and not a
# framework name Quire provides) is UI; SwiftUI's names are listed.
UI_PATTERN = re.compile(
    r"^(UI|NS|PDF|QL)\w*(View|Views|ViewController|Controller|Window|Windows|Button|Label|Bar|BarItem|BarButtonItem|Item|"
    r"Gesture|GestureRecognizer|Recognizer|Menu|MenuItem|Storyboard|StoryboardSegue|Segue|Nib|Application|Screen|Font|Responder|"
    r"Effect|Alert|AlertAction|AlertStyle|Event|Touch|LayoutGuide|Constraint|Scene|SceneDelegate|Workspace|Panel|Cell|"
    r"Representable|Sharing\w*|Appearance|Control|Slider|Switch|TextField|TextView|Interaction\w*|Configuration|Delegate)$")
UI_NAMES = {"NSStoryboard", "NSNib", "NSApp", "NSApplication", "UIApplication", "UIScreen", "UIStoryboard", "UIMenuController",
            "UIMenuItem", "NSWorkspace", "UIFont", "NSFont", "UIEdgeInsets", "NSEdgeInsets", "UIRectEdge", "UIModalPresentationStyle",
            "IBOutlet", "IBAction", "IBInspectable", "IBDesignable", "View", "Text", "Button", "VStack", "HStack", "ZStack", "List",
            "NavigationView", "NavigationStack", "Image", "Color", "State", "Binding", "Environment", "EnvironmentObject",
            "StateObject", "ObservedObject", "some View", "UIViewRepresentable", "NSViewRepresentable", "Context", "Scene",
            "WindowGroup", "DocumentGroup", "App", "ForEach", "Spacer", "Group", "OutlineGroup", "Toggle", "Section", "Form",
            "UIHostingController", "NSHostingView", "PDFView", "PDFThumbnailView", "PDFViewDelegate", "PDFKitView",
            "UIDocumentBrowserViewController", "UIDocumentPickerViewController", "UIDocumentInteractionController",
            "UIActivityViewController", "QLPreviewController", "UIGraphicsImageRenderer", "UIGraphicsBeginImageContext",
            "UIRectFill", "NSRectFill", "UIBezierPath", "NSBezierPath", "UIVisualEffectView", "UIBlurEffect", "UITableView",
            "UICollectionView", "UISearchBar", "UINavigationController", "UIBarButtonItem", "UIPanGestureRecognizer",
            "UILongPressGestureRecognizer", "UIGestureRecognizer", "NSWindowController", "NSViewController", "NSWindow",
            "NSView", "UIView", "UIViewController", "UIResponder", "NSResponder", "UIContextMenuConfiguration", "UIAction"}
# Members of Apple's UI classes (what a view or view controller subclass overrides or calls).
UI_MEMBER_WORDS = {"window", "windows", "nib", "view", "views", "storyboard", "segue", "menu", "gesture", "responder",
                   "subview", "subviews", "layout", "appear", "disappear", "bounds", "frame", "center", "navigation",
                   "superview", "touches", "draw", "animate", "present", "dismiss", "toolbar", "scene", "safe", "nib"}
# Apple's frameworks outside these documents, and Linux Foundation's own gaps.
PLATFORM_PATTERN = re.compile(r"^(AV|CK|PH|CL|MK|SK|SCN|AR|CN|EK|HK|GK|WK|SF|NE|AS|LP|MP|MT|CA|CI|VN|NSExtension|NSUserActivity|"
                              r"NSMetadata|NSUbiquitous|NSManaged|NSPersistent(Container|Store)|NSFetch|CG(?!PDF)|CF|Unmanaged)")
PLATFORM_NAMES = {"unimpErr", "NSOSStatusErrorDomain", "OSStatus", "noErr", "Logger", "os_log", "OSLog", "OSLogType",
                  "PassthroughSubject", "CurrentValueSubject", "AnyCancellable", "Published", "ObservableObject", "Just",
                  "NSExtensionItem", "NSExtensionContext", "extensionContext", "NSMetadataQuery", "NSUbiquitousKeyValueStore",
                  "NSCocoaError", "NSFileProviderManager", "NSKeyedUnarchiver", "CACurrentMediaTime", "DispatchQueue"}

# Override and subclassing refusals, any superclass (decided by the superclass).
OVERRIDE_MESSAGES = [
    r"^overriding non-open .* outside of its defining module",
    r"^cannot inherit from non-open class '([^']+)' outside of its defining module",
    r"^inheritance from a final class '([^']+)'",
    r"^(method|property|initializer|subscript) does not override any (method|property|initializer|subscript|designated initializer)",
    r"^initializer does not override a designated initializer",
    r"^'required' initializer '[^']*' must be provided by subclass of '([^']+)'",
    r"^'required' modifier must be present on all overrides of a required initializer",
    r"^overriding declaration requires an 'override' keyword",
    r"^cannot override mutable property with read-only property",
    r"^cannot override (a )?(final|static|with a stored property|'[^']+' which has been marked unavailable)",
    r"^instance method overrides a 'final' instance method",
    r"^(property|var|instance method|method|class method|class property|initializer) overrides a 'final'",
    r"^.* declared in an extension of '[^']+' and cannot be overridden",
    r"^non-@objc .* is declared in extension of '[^']+' and cannot be overridden",
    r"^declarations in extensions cannot override yet",
    r"^method does not override any method from its superclass",
    r"^cannot override '[^']+' which",
    r"^property '[^']+' with type '[^']+' cannot override a property with type",
    r"^method '[^']+' with Objective-C selector",
    r"^class '[^']+' has no initializers",
    r"^ambiguous override",
    r"^designated initializer cannot be declared in an extension",
    r"^'super' members cannot be referenced in a root class",
    r"^(instance method|property|initializer|method) '[^']+' (has different argument labels|with type) .* (overrid|from superclass)",
]
OVERRIDE_RE = [re.compile(pattern) for pattern in OVERRIDE_MESSAGES]
# "class 'X' has no initializers" is decided by the superclass too: a subclass of a Quire class
# whose designated initializer differs from Apple's gets it.

OBJC_MESSAGES = re.compile(r"Objective-C interoperability is disabled|'#selector'|Objective-C selector|@objc|objc_|NSInvocation|"
                           r"'dynamic'|prepareWithInvocationTarget|prepare\(withInvocationTarget|key path .* Objective-C|"
                           r"Selector\(|cannot find (type )?'Selector' in scope|'perform\(|unrecognized selector")

# Spellings of these frameworks' API from before Swift 4 that Apple renamed and that Apple's
# current SDKs reject as well (SE-0005 "Better Translation of Objective-C APIs Into Swift" and
# SE-0086 "Drop NS Prefix in Swift Foundation" in Swift 3; NSDocument's autosavesInPlace became a
# class property in the macOS 10.13 SDK). Each entry: the old spelling as the compiler or the
# source line shows it, the current spelling, and a probe: code that uses the current spelling.
# The probes are type-checked against Quire on every run, as a client module; an entry whose
# probe fails is not excused (its errors count against Quire).
OLD_SPELLINGS = {
    "NSUndoManager": ("UndoManager (Swift 3, SE-0086)",
                      "@MainActor func probe() { let manager: UndoManager = UndoManager(); manager.registerUndo(withTarget: manager) { _ in } }"),
    "registerUndoWithTarget": ("registerUndo(withTarget:handler:) (Swift 3, SE-0005)",
                               "@MainActor func probe(_ manager: UndoManager) { manager.registerUndo(withTarget: manager) { _ in } }"),
    "undoing": ("isUndoing (Swift 3, SE-0005)", "@MainActor func probe(_ manager: UndoManager) -> Bool { manager.isUndoing }"),
    "redoing": ("isRedoing (Swift 3, SE-0005)", "@MainActor func probe(_ manager: UndoManager) -> Bool { manager.isRedoing }"),
    "dataOfType": ("data(ofType:) throws (Swift 3, SE-0005; NSErrorPointer became throws in Swift 2's import)",
                   "class Probe: NSDocument { override func data(ofType typeName: String) throws -> Data { Data() } }"),
    "readFromData": ("read(from:ofType:) throws (Swift 3, SE-0005)",
                     "class Probe: NSDocument { override func read(from data: Data, ofType typeName: String) throws {} }"),
    "readFromURL": ("read(from:ofType:) throws with a URL (Swift 3, SE-0005)",
                    "class Probe: NSDocument { override func read(from url: URL, ofType typeName: String) throws {} }"),
    "func autosavesInPlace(": ("class var autosavesInPlace (macOS 10.13 SDK)",
                               "class Probe: NSDocument { override class var autosavesInPlace: Bool { true } }"),
    "NSItemProviderCompletionHandler": ("NSItemProvider.CompletionHandler (Swift 3)",
                                        "let probe: NSItemProvider.CompletionHandler? = nil"),
    "loadItemForTypeIdentifier": ("loadItem(forTypeIdentifier:options:completionHandler:) (Swift 3, SE-0005)",
                                  "func probe(_ provider: NSItemProvider) { provider.loadItem(forTypeIdentifier: \"public.text\", options: nil) { _, _ in } }"),
    "loadPreviewImageWithOptions": ("loadPreviewImage(options:completionHandler:) (Swift 3, SE-0005)",
                                    "func probe(_ provider: NSItemProvider) { provider.loadPreviewImage(options: [:]) { _, _ in } }"),
}

CLASSES = ["quire", "old-spelling", "objc", "ui", "platform", "app", "language"]


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
    if not entry.get("commit"):
        raise SystemExit(f"typecheck: {target} is missing and {entry['repo']}/{entry['path']} has no recorded commit. Put the file there.")
    url = f"https://raw.githubusercontent.com/{entry['repo']}/{entry['commit']}/{entry['path']}"
    try:
        with urllib.request.urlopen(url, timeout=20) as response:
            data = response.read()
    except Exception as error:  # no network: say which file is missing
        raise SystemExit(f"typecheck: {target} is missing and {url} cannot be fetched ({error}). Put the file there.")
    with open(target, "wb") as out:
        out.write(data)


def available_modules(modules):
    return {os.path.basename(path)[: -len(".swiftmodule")] for path in glob.glob(os.path.join(modules, "*.swiftmodule"))}


IMPORT_RE = re.compile(r"^(\s*)((?:@\w+\s+)*)import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?(\w+)(\.\w+)*\s*(//.*)?$")


def ported(text, present):
    """The file as a client ports it, and the synthetic errors of offered modules that are absent
    (line numbers in the ported text)."""
    lines, absent = [], []
    for line in text.splitlines():
        match = IMPORT_RE.match(line)
        name = match.group(3) if match else None
        if name in OFFERED_MODULES and name in present:
            lines.append(line)
        elif name in OFFERED_MODULES:
            lines.append("import Quire")
            absent.append((len(lines) + 1, name))  # +1: the `import Quire` put on the first line
        elif name in REPLACED_MODULES:
            lines.append("import Quire")
        else:
            for module in ["UIKit", "AppKit"] + OFFERED_MODULES:
                line = line.replace(f"canImport({module})", "true")
            lines.append(line)
    lines.insert(0, "import Quire")
    return "\n".join(lines) + "\n", absent


def module_map_folders(modules):
    """The folders of the C module maps the Quire modules were built with (a client's build
    has them the same way): the package's own shims and its dependencies'."""
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
    packages = ["libcmark", "poppler-glib", "pangocairo", "libpng", "libqpdf", "libgit2", "libedit"]
    run = subprocess.run(["pkg-config", "--cflags"] + packages, capture_output=True, text=True)
    return [flag for option in run.stdout.split() for flag in ("-Xcc", option)]


_INCLUDES = {}


def includes(modules):
    if modules not in _INCLUDES:
        _INCLUDES[modules] = [flag for folder in module_map_folders(modules) for flag in ("-I", folder)] + c_flags()
    return _INCLUDES[modules]


def swiftc(file, modules, module_name, extra=()):
    run = subprocess.run(["swiftc", "-typecheck", "-swift-version", "5", "-diagnostic-style", "llvm", "-module-name", module_name,
                          "-I", modules] + list(extra) + includes(modules) + [file], capture_output=True, text=True)
    output = run.stdout + run.stderr
    if run.returncode != 0 and "error:" not in output:
        # a compiler crash or a signal: the file was not checked, which must not read as free
        output += f"\nerror: swiftc exited with status {run.returncode} without a diagnostic\n"
    return output


def quire_api(modules, present):
    """The public API of Quire's modules, from their symbol graphs: the type names (with nested
    and typealias names), the member names of each type, and the members of the Apple-named
    types (what a ported file calls)."""
    types, members, classes, aliases = set(), {}, set(), {}
    wanted = sorted(name for name in present if name.startswith("Quire") or name in OFFERED_MODULES)
    with tempfile.TemporaryDirectory() as folder:
        for name in wanted:
            subprocess.run(["swift-symbolgraph-extract", "-module-name", name, "-I", modules, "-target", "x86_64-unknown-linux-gnu",
                            "-minimum-access-level", "public", "-output-dir", folder] + includes(modules),
                           capture_output=True, text=True)
        for path in glob.glob(os.path.join(folder, "*.symbols.json")):
            with open(path) as handle:
                graph = json.load(handle)
            for symbol in graph.get("symbols", []):
                kind = symbol["kind"]["identifier"]
                components = symbol.get("pathComponents", [])
                if not components:
                    continue
                if kind in ("swift.class", "swift.struct", "swift.enum", "swift.protocol", "swift.typealias", "swift.associatedtype"):
                    types.add(components[-1])
                    types.add(".".join(components))
                    if kind == "swift.class" or kind == "swift.typealias":
                        classes.add(components[-1])
                    if kind == "swift.typealias":
                        # `typealias NSItemProvider = ItemProvider`: ItemProvider's members are Apple's API
                        targets = [fragment["spelling"] for fragment in symbol.get("declarationFragments", []) if fragment.get("kind") == "typeIdentifier"]
                        if targets:
                            aliases[components[-1]] = targets[0]
                if len(components) >= 2:
                    owner = components[-2]
                    base = re.sub(r"\(.*$", "", components[-1])
                    members.setdefault(owner, set()).add(base)
    apple_members = set()
    aliased = {target for alias, target in aliases.items() if is_apple_name(alias)}
    for owner, names in members.items():
        if is_apple_name(owner) or owner in aliased:
            apple_members |= names
    apple_members -= {"init", "description", "debugDescription", "hash", "hashValue", "rawValue", "count", "isEmpty", "first",
                      "last", "url", "data", "string", "name", "type", "value", "id", "write", "read", "copy"}
    return {"types": types, "members": members, "appleMembers": apple_members, "classes": classes}


def is_apple_name(name):
    return name in FRAMEWORK_NAMES or bool(APPLE_PREFIX.match(name))


# The frameworks' own prefixes: a name with one is not UI unless UI_NAMES lists it
# (NSDocumentController ends in "Controller" and is the document layer's).
FRAMEWORK_PREFIX = re.compile(r"^(UIDocument|NSDocument|NSPersistentDocument|NSFile|NSItemProvider|UIPasteboard|NSPasteboard|UTType|UTTag|kUT|"
                              r"PDF|QLThumbnail|CGPDF|NSUndoManager|UndoManager|FileWrapper|NSFileWrapper)")


# AppKit's user interface among NS names (NS is Foundation's prefix too).
APPKIT_UI = re.compile(r"^NS\w*(Table|Column|Border|Bezel|Scroll|Button|Window|View|Storyboard|Nib|Menu|Cell|Font|Cursor|Event|Responder|"
                       r"Application|Workspace|Alert|Panel|Toolbar|Tab|Split|Collection|Layout|Animation|Screen|Popover|Control|Slider|"
                       r"Segment|Stepper|Box|Bezier|Graphics|Print|Sharing|Dragging|Gesture|TextField|TextView|TextStorage|TextContainer|"
                       r"ImageView|ImageRep|Status|Dock|Touch|Appearance|Visual|Ruler|Drawer|Matrix|Browser|Outline|Pasteboard(Item)?Writing)\w*$")


def is_ui_name(name):
    base = name.split(".")[-1]
    if name in UI_NAMES or base in UI_NAMES:
        return True
    if FRAMEWORK_PREFIX.match(base) or is_platform_name(base):
        return False
    # UIKit outside UIDocument, UIPasteboard, UIImage and UIColor (which Quire provides) is UI.
    return bool(UI_PATTERN.match(base) or re.match(r"^UI[A-Z]", base) or APPKIT_UI.match(base))


def is_platform_name(name):
    return name in PLATFORM_NAMES or bool(PLATFORM_PATTERN.match(name))


def words(name):
    return {word.lower() for word in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])", name)}


# The file's own declarations: class/struct/enum/protocol names and what each inherits.
DECLARATION_RE = re.compile(r"\b(class|struct|enum|extension|protocol|actor)\s+(?!(?:var|let|func|subscript)\b)([\w.]+)\s*(?:<[^>{]*>)?\s*(?::\s*([^{]+))?\{")


def declarations(source):
    declared, supers = set(), {}
    for match in DECLARATION_RE.finditer(source):
        kind, name, inherits = match.group(1), match.group(2).split(".")[-1], match.group(3) or ""
        parents = []
        for part in re.sub(r"\bwhere\b.*", "", inherits).split(","):
            part = part.strip().split("<")[0]
            if part:
                parents.append(part if part.startswith("Foundation.") else part.split(".")[-1])
        if kind != "extension":
            declared.add(name)
        if kind == "extension":
            supers.setdefault(name, [])
            supers[name] = [name] + supers[name]
        supers.setdefault(name, [])
        supers[name] += parents
    return declared, supers


def variable_types(source):
    """The declared or constructed type of each variable the file names (`let doc = PDFDocument(...)`,
    `var page: PDFPage?`), to tell what a line's receiver is."""
    types = {}
    for match in re.finditer(r"\b(?:let|var|guard let|if let)\s+(\w+)\s*(?::\s*\[?([A-Z][\w.]*)|=\s*(?:try\??\s*)?([A-Z][\w.]*)\s*[(.])", source):
        name, declared, constructed = match.group(1), match.group(2), match.group(3)
        types.setdefault(name, (declared or constructed).split(".")[0] if (declared or constructed) else None)
    for match in re.finditer(r"\bfor\s+(\w+)\s+in\s+[^{]*\bas[!?]?\s*\[([A-Z]\w*)\]", source):
        types.setdefault(match.group(1), match.group(2))
    return {name: kind for name, kind in types.items() if kind}


def enclosing_types(source_lines, number):
    """The types a line is in, innermost first (by brace depth: a good guess for formatted code).
    A line that declares a type is in that type."""
    stack, depth = [], 0  # entries: [depth before the declaration, name, body opened]
    for index, text in enumerate(source_lines[:number]):
        stripped = re.sub(r'"(\\.|[^"\\])*"', '""', re.sub(r"//.*$", "", text))
        match = re.match(r"^\s*(?:[@\w]+(?:\([^)]*\))?\s+)*(?:class|struct|enum|extension|actor|protocol)\s+(?!(?:var|let|func|subscript)\b)([\w.]+)", stripped)
        if match:
            stack.append([depth, match.group(1).split(".")[-1], False])
        if index == number - 1:
            break
        for character in stripped:
            if character == "{":
                depth += 1
                if stack and depth > stack[-1][0]:
                    stack[-1][2] = True
            elif character == "}":
                depth -= 1
                while stack and stack[-1][2] and depth <= stack[-1][0]:
                    stack.pop()
    return [name for _, name, _ in reversed(stack)]


class Context:
    """What classify() knows: Quire's public API, the file's declarations and stubbed modules."""

    def __init__(self, api, declared=(), supers=None, stubbed=(), probes=None, variables=None, foundation=(), own_members=(), source=""):
        self.api = api
        self.own_members = set(own_members)
        self.source = source
        self.variables = variables or {}
        self.foundation = set(foundation) | FOUNDATION_TYPES
        self.declared = set(declared)
        self.supers = supers or {}
        self.stubbed = set(stubbed)
        self.probes = probes or {}

    def quire_provides(self, name):
        base = name.split(".")[-1]
        return name in self.api["types"] or (base in self.api["types"] and base not in self.declared)

    def lineage(self, name, seen=None):
        """The names a type inherits from, following the file's own declarations."""
        seen = seen or set()
        if name in seen:
            return []
        seen.add(name)
        result = []
        for parent in self.supers.get(name, []):
            if parent == name:
                continue
            result.append(parent)
            result += self.lineage(parent, seen)
        return result

    def superclass_kind(self, owner):
        """The kind of the nearest superclass of `owner` (a type the file declares) that the
        file does not declare, or None."""
        for parent in self.lineage(owner):
            if parent in self.declared and not parent.startswith("Foundation."):
                continue
            return self.kind_of_type(parent)
        return None

    def kind_of_type(self, name):
        """"quire" (a type Quire provides or the file's subclass/extension of one), "ui", "app"
        (the file's own or another file's), "platform" or "foundation"."""
        if name.startswith("Foundation."):
            return "platform"  # Quire cannot add to Linux's Foundation module (see the porting guide)
        base = name.rstrip("?!").split(".")[-1].split("<")[0]
        chain = [base] + self.lineage(base) if base in self.supers else [base]
        for item in chain:
            if item.startswith("Foundation."):
                return "platform"
            if item in self.declared and item != base:
                continue
            if item in self.foundation and not self.quire_provides(item):
                return "foundation"
            if is_ui_name(item) and not self.quire_provides(item):
                return "ui"
            if self.quire_provides(item) and (item not in self.declared):
                return "quire"
            if is_apple_name(item) and item not in self.declared:
                return "quire" if not is_platform_name(item) else "platform"
        if base in self.declared or base in self.supers:
            return "app"
        if is_platform_name(base):
            return "platform"
        if base in self.foundation:
            return "foundation"
        return "app"


FOUNDATION_TYPES = {"String", "URL", "Data", "NSString", "NSURL", "NSData", "FileManager", "Bundle", "Date", "NSError", "Error",
                    "Array", "Dictionary", "Set", "Int", "Double", "Bool", "Substring", "Character", "NSObject", "Any", "AnyObject",
                    "OperationQueue", "Operation", "NotificationCenter", "Notification", "JSONEncoder", "JSONDecoder",
                    "URLResourceValues", "NSRange", "NSAttributedString", "CGRect", "CGSize", "CGPoint", "CGFloat", "UUID",
                    "DispatchQueue", "DispatchGroup", "Result", "Optional", "NSNumber", "NSDictionary", "NSArray",
                    "NSMutableDictionary", "ProcessInfo", "Progress", "Thread", "Timer", "RunLoop", "NSLock", "Task"}


# Errors that follow from another error on the same line (a type that is missing makes its
# members' contextual bases and closure types unknown): they take that error's class.
CASCADE_MESSAGES = re.compile(r"^(cannot infer contextual base|'nil' requires a contextual type|cannot infer type of closure parameter|"
                              r"failed to produce diagnostic|generic parameter '[^']+' could not be inferred|reference to member '[^']+' cannot be resolved|"
                              r"unable to infer (complex )?closure|type of expression is ambiguous)")


def classify(message, text, context, enclosing=()):
    """One error's class (see the module's comment). `text` is the error's source line,
    `enclosing` the types the line is in, innermost first."""
    quoted = re.findall(r"'([^']+)'", message)
    # Objective-C runtime.
    if OBJC_MESSAGES.search(message):
        return "objc"
    if re.search(r"#selector|\bSelector\(|prepare\(withInvocationTarget|prepareWithInvocationTarget", text) and not re.match(r"^(cannot find|value of type|type ')", message):
        return "objc"
    # Old spellings whose current spelling compiles against Quire (a probe proves it).
    for old, (_, probe_ok) in context.probes.items():
        pattern = re.escape(old) if not old[0].isalpha() or not old[-1].isalnum() else r"\b" + re.escape(old) + r"\b"
        if re.search(pattern, message) or re.search(pattern, text) and not quoted:
            return "old-spelling" if probe_ok else "quire"
    if re.match(r"^no such module '", message):
        return "quire" if quoted and quoted[0] in OFFERED_MODULES else "app"
    if re.search(r"\(aka 'AnyObject'\) cannot be constructed", message):
        return "platform"  # Linux's Foundation names FoundationXML's types (XMLDocument) as unavailable placeholders
    if re.match(r"^no type named '[^']+' in module 'Foundation'", message):
        return "platform"  # `Foundation.UndoManager`: Quire cannot add to Linux's Foundation module
    # A class whose superclass did not resolve.
    no_super = re.match(r"^'super' cannot be used in class '([^']+)' because it has no superclass", message)
    if no_super:
        kind = context.superclass_kind(no_super.group(1))
        return {"quire": "quire", "ui": "ui", "platform": "platform", "foundation": "platform", None: "language"}.get(kind, "app")
    # Overrides and subclassing: decided by the superclass of the class the line is in.
    if any(pattern.search(message) for pattern in OVERRIDE_RE):
        if re.match(r"^(cannot inherit|inheritance from|'required' initializer)", message):
            named = [name for name in quoted if not name.startswith("init") and re.match(r"^[A-Z][\w.]*$", name)]
            if named:
                kind = context.kind_of_type(named[-1])
                return {"quire": "quire", "ui": "ui", "platform": "platform", "foundation": "platform"}.get(kind, "app")
        owner = next(iter(enclosing), None)
        kind = context.superclass_kind(owner) if owner else None
        if kind is None:
            # No superclass the file names: an override in an extension of a Quire type, or a
            # refusal the compiler reports without a class (counted, unsure).
            if owner and context.kind_of_type(owner) == "quire":
                return "quire"
            return "quire" if re.match(r"^overriding non-open|^.*cannot be overridden|^declarations in extensions", message) else "language"
        return {"quire": "quire", "ui": "ui", "platform": "platform", "foundation": "platform"}.get(kind, "app")
    # A name missing.
    missing = re.match(r"^cannot find (?:type )?'([^']+)' in scope", message)
    if missing:
        name = missing.group(1)
        if name in context.own_members:
            return "app"
        if name in OLD_SPELLINGS:
            return "old-spelling" if context.probes.get(name, (None, False))[1] else "quire"
        if is_ui_name(name):
            return "ui"
        if is_platform_name(name):
            if name.startswith("CF") and re.search(r"\b(kUT\w+|UTType\w*)\b", text):
                return "quire"  # MobileCoreServices' C API takes and returns CFString
            return "platform"
        if is_apple_name(name) or name in OFFERED_MODULES:
            return "quire"
        if name[0].islower():
            # A bare name in a subclass: the superclass's member when the superclass is Apple's.
            for owner in enclosing:
                kind = context.superclass_kind(owner) if owner in context.supers else None
                parents = [parent for parent in context.lineage(owner) if parent not in context.declared]
                if kind == "quire" and parents and parents[0] in context.api.get("classes", set()):
                    return "quire"
                if kind == "ui":
                    return "ui"
                if kind == "quire" and not parents:
                    return "quire"
                # an extension of a Quire class
                if owner not in context.declared and context.kind_of_type(owner) == "quire" and owner in context.api.get("classes", set()):
                    return "quire"
            return "app"
        return "app"
    # A member missing on a type.
    member = re.match(r"^(?:type|value of type|value of optional type)\s*'([^']+)'\s*has no (?:member|static member)\s*'([^']*)'", message)
    if member:
        owner, name = member.group(1), member.group(2)
        if name in context.own_members:
            return "app"  # the app's own extension, in another file of its repository (sources.json says which)
        owner = re.sub(r"^(any|some)\s+", "", owner).strip("()").rstrip("?!").replace(".Type", "")
        kind = context.kind_of_type(owner)
        if kind == "foundation":
            # Linux Foundation's gap, unless what is missing is one of the frameworks' names.
            return "quire" if is_apple_name(name) and not is_ui_name(name) and not is_platform_name(name) else "platform"
        return kind
    # Anything else: what the line's names and receivers are.
    clean = re.sub(r'"(\\.|[^"\\])*"', '""', re.sub(r"//.*$", "", text))
    names_on_line = re.findall(r"\b[A-Za-z_]\w*\b", clean)
    for name in quoted:
        base = name.split(".")[-1].split("<")[0].rstrip("?!")
        if base not in context.declared and context.quire_provides(base) and is_apple_name(base) and not is_ui_name(base):
            return "quire"
    receivers = re.findall(r"\b(\w+)\??\.\w+", clean)
    receiver_kinds = [context.kind_of_type(context.variables[name]) for name in receivers if name in context.variables]
    if "quire" in receiver_kinds:
        return "quire"
    for name in names_on_line:
        if name in context.declared:
            continue
        if is_ui_name(name) and not context.quire_provides(name):
            return "ui"
        if is_platform_name(name):
            return "platform"
    if "ui" in receiver_kinds:
        return "ui"
    for name in names_on_line:
        if name not in context.declared and (context.quire_provides(name) or is_apple_name(name)) and not is_ui_name(name):
            return "quire"
    called = set(re.findall(r"\.(\w+)\b", clean)) | set(re.findall(r"\bawait\s+(?:try\s+)?(?:\w+\.)*(\w+)", clean))
    if called & context.api["appleMembers"]:
        return "quire"
    own = set(re.findall(r"\b(?:var|let|func|case)\s+(\w+)", context.source))
    for owner in enclosing:
        if context.superclass_kind(owner) == "quire" and (re.search(r"\bsuper\.\w+", clean) or
                                                          set(re.findall(r"\bself\.(\w+)", clean)) - own):
            return "quire"
    if "platform" in receiver_kinds or "foundation" in receiver_kinds:
        return "platform"
    for name in quoted:
        if is_apple_name(name.split(".")[-1]) and not is_ui_name(name):
            return "quire"
    return "language"


def check_probes(modules):
    """Type-checks each old spelling's probe (its current form) against Quire, as a client module."""
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        for old, (current, probe) in OLD_SPELLINGS.items():
            file = os.path.join(folder, "probe.swift")
            with open(file, "w") as out:
                out.write("import Quire\nimport Foundation\n" + probe + "\n")
            output = swiftc(file, modules, "Probe")
            results[old] = (current, ": error:" not in output)
    return results


def foundation_names(sources, corpus, modules):
    """The NS-prefixed names of the corpus that Linux's Foundation has (one probe compile,
    without Quire): a member missing on one of those is Foundation's gap, not Quire's."""
    names = set()
    for entry in sources:
        path = os.path.join(corpus, entry["file"])
        if os.path.exists(path):
            with open(path, encoding="utf-8-sig", errors="replace") as handle:
                names |= set(re.findall(r"\b(NS[A-Z]\w*)\b", handle.read()))
    names = sorted(names)
    with tempfile.TemporaryDirectory() as folder:
        file = os.path.join(folder, "probe.swift")
        with open(file, "w") as out:
            out.write("import Foundation\n" + "".join(f"_ = {name}.self\n" for name in names))
        output = swiftc(file, modules, "FoundationProbe")
    failed = {int(number) - 2 for number in re.findall(r":(\d+):\d+: error:", output)}
    return {name for index, name in enumerate(names) if index not in failed}


def stub_module(name, folder):
    source = os.path.join(folder, f"{name}_stub.swift")
    with open(source, "w") as out:
        out.write("// empty stand-in for a third-party module\n")
    subprocess.run(["swiftc", "-emit-module", "-parse-as-library", "-module-name", name, "-o", os.path.join(folder, f"{name}.swiftmodule"), source],
                   capture_output=True, text=True, check=True)


def module_name_for(path):
    name = re.sub(r"\W", "_", os.path.basename(path).rsplit(".", 1)[0])
    return "Corpus_" + name


def check(path, modules, present, api, probes, foundation=(), own_members=()):
    with open(path, encoding="utf-8-sig", errors="replace") as handle:
        source, absent = ported(handle.read(), present)
    stubbed = []
    with tempfile.TemporaryDirectory() as folder:
        file = os.path.join(folder, os.path.basename(path))
        with open(file, "w") as out:
            out.write(source)
        stubs = os.path.join(folder, "stubs")
        os.makedirs(stubs)
        while True:
            output = swiftc(file, modules, module_name_for(path), ["-I", stubs])
            missing = [name for name in re.findall(r"error: no such module '([^']+)'", output) if name not in stubbed]
            if not missing:
                break
            for name in missing:
                if name in OFFERED_MODULES or name == "Quire" or name.startswith("Quire"):
                    raise SystemExit(f"typecheck: {modules} has no module {name}: is the build complete?")
                stub_module(name, stubs)
                stubbed.append(name)
    source_lines = source.splitlines()
    declared, supers = declarations(source)
    context = Context(api, declared, supers, stubbed, probes, variable_types(source), foundation, own_members, source)
    errors = []
    for number, name in absent:
        errors.append({"line": number, "message": f"no such module '{name}'", "text": f"import {name}", "class": "quire"})
    seen = set()
    for line in output.splitlines():
        match = re.match(r"^(.*?):(\d+):\d+: error: (.*)$", line)
        if not match:
            if re.match(r"^(<unknown>:\d+:\d+: |\S+: )?error: ", line):  # not a source excerpt that says "error:"
                unchecked = "without a diagnostic" in line  # the file was not checked: unsure, so Quire's
                errors.append({"line": 0, "message": line, "text": "", "class": "quire" if unchecked else "language", "in": []})
            continue
        message, number = match.group(3), int(match.group(2))
        if (number, message) in seen:
            continue
        seen.add((number, message))
        text = source_lines[number - 1] if number <= len(source_lines) else ""
        enclosing = enclosing_types(source_lines, number)
        errors.append({"line": number, "message": message, "text": text.strip(), "in": enclosing,
                       "class": classify(message, text, context, enclosing)})
    for error in errors:
        if CASCADE_MESSAGES.match(error["message"]):
            # the same line first, then the two lines above (a call or a guard written over several lines)
            causes = [other["class"] for back in (0, 1, 2) for other in errors
                      if other["line"] == error["line"] - back and not CASCADE_MESSAGES.match(other["message"])]
            if causes:
                error["class"] = causes[0]
                error["cascade"] = True
            elif any(context.kind_of_type(context.variables[name]) == "quire"
                     for name in re.findall(r"\b(\w+)\??\.\w+", error["text"]) if name in context.variables):
                error["class"] = "quire"  # a receiver whose type is a missing Apple name (`let n = UTTypeReference(...)`)
                error["cascade"] = True
            else:
                # In a class whose superclass did not resolve (a UIViewController subclass),
                # `self` has no type and its closures none either: the superclass's class.
                for owner in error["in"]:
                    kind = context.superclass_kind(owner)
                    if kind in ("ui", "platform", "app") and any(parent not in context.declared and context.kind_of_type(parent) == kind
                                                                 for parent in context.lineage(owner)[:1]):
                        error["class"] = kind
                        error["cascade"] = True
                        break
    for error in errors:
        error.pop("in", None)
    return {"errors": errors, "stubbed": stubbed}


def self_test():
    """The classifier on errors whose class is known, issue 28's examples first: a rule that
    let one of those through as not Quire's would fail here."""
    api = {"types": {"UndoManager", "UIDocument", "NSDocument", "Document", "PDFDocument", "PDFPage", "PDFSelection", "UTType",
                     "UIPasteboard", "ItemProvider", "NSItemProvider", "FileWrapper", "NSFileVersion", "UIImage", "CGImage"},
           "members": {"UIDocument": {"open", "close", "save", "revert", "fileModificationDate"}},
           "appleMembers": {"open", "close", "save", "revert", "fileModificationDate", "pages", "loadObject", "setItems"},
           "classes": {"UndoManager", "UIDocument", "NSDocument", "Document", "PDFDocument", "PDFPage", "PDFSelection", "UIPasteboard",
                       "ItemProvider", "NSItemProvider", "FileWrapper", "NSFileVersion", "UIImage", "CGImage"}}
    ok = {old: (current, True) for old, (current, _) in OLD_SPELLINGS.items()}
    failing = {old: (current, False) for old, (current, _) in OLD_SPELLINGS.items()}
    notes = ("class Notes: UIDocument {", {"Notes"}, {"Notes": ["UIDocument"]})
    undoer = ("class Undoer: UndoManager {", {"Undoer"}, {"Undoer": ["UndoManager"]})
    view = ("class MyView: UIView {", {"MyView"}, {"MyView": ["UIView"]})
    plain = ("", set(), {})
    cases = [
        # issue 28's examples
        ("quire", "overriding non-open instance method outside of its defining module", "override func undo() {", undoer, ok, ["Undoer"]),
        ("quire", "inheritance from a final class 'UndoManager'", "class Undoer: UndoManager {", undoer, ok, []),
        ("quire", "cannot convert value of type '()' to specified type 'Bool'", "let ok: Bool = await doc.open()", notes, ok, []),
        ("quire", "cannot find 'PDFKit' in scope", "let document = PDFKit.PDFDocument(url: url)", plain, ok, []),
        ("quire", "no such module 'PDFKit'", "import PDFKit", plain, ok, []),
        ("quire", "cannot find type 'NSDocumentController' in scope", "class Controller: NSDocumentController {", plain, ok, []),
        ("quire", "cannot find 'NSDocumentController' in scope", "NSDocumentController.shared.openDocument(nil)", plain, ok, []),
        # the rest of the rule
        ("quire", "'required' initializer 'init(fileURL:fileType:)' must be provided by subclass of 'UIDocument'", "}", notes, ok, ["Notes"]),
        ("quire", "method does not override any method from its superclass", "override func handleError(_ error: Error, userInteractionPermitted: Bool) {", notes, ok, ["Notes"]),
        ("quire", "property does not override any property from its superclass", "override var fileModificationDate: Date? {", notes, ok, ["Notes"]),
        ("quire", "method does not override any method from its superclass", "override func makeWindowControllers() {", ("class Doc: NSDocument {", {"Doc"}, {"Doc": ["NSDocument"]}), ok, ["Doc"]),
        ("quire", "cannot override mutable property with read-only property 'fileType'", "public override var fileType: String? { return \"txt\" }", notes, ok, ["Notes"]),
        ("quire", "value of type 'Notes' has no member 'fileModificationDate'", "if doc.fileModificationDate == nil {", notes, ok, []),
        ("quire", "value of type 'PDFSelection' has no member 'pages'", "guard let pages = selections?.first?.pages else { return }", plain, ok, []),
        ("quire", "type 'UTType' has no member 'mpeg2TransportStream'", "case .mpeg2TransportStream:", plain, ok, []),
        ("quire", "cannot find 'UTTypeConformsTo' in scope", "return UTTypeConformsTo(uti, kUTTypeImage)", plain, ok, []),
        ("quire", "cannot find 'kUTTypeJPEG' in scope", "switch UTI(kUTTypeJPEG as String) {", plain, ok, []),
        ("quire", "cannot find 'NSFileAccessIntent' in scope", "let intent = NSFileAccessIntent.readingIntent(with: url)", plain, ok, []),
        ("quire", "value of type 'UIPasteboard' has no member 'setItems'", "UIPasteboard.general.setItems([[\"a\": 1]], options: [:])", plain, ok, []),
        ("quire", "cannot find 'NSUndoManager' in scope", "let undoer = NSUndoManager()", plain, failing, []),
        ("quire", "cannot find 'addWindowController' in scope", "self.addWindowController(windowController)", ("class Doc: NSDocument {", {"Doc"}, {"Doc": ["NSDocument"]}), ok, ["Doc"]),
        ("quire", "cannot find type 'CFString' in scope", "let id = UTTypeCreatePreferredIdentifierForTag(kUTTagClassFilenameExtension, ext as CFString, nil)", plain, ok, []),
        # not Quire's
        ("old-spelling", "cannot find 'NSUndoManager' in scope", "let undoer = NSUndoManager()", plain, ok, []),
        ("objc", "Objective-C interoperability is disabled", "@objc func presentedSubitemDidChange(at url: URL) {", plain, ok, []),
        ("ui", "cannot find type 'NSWindowController' in scope", "let controller = storyboard.instantiateController(withIdentifier: id) as! NSWindowController", plain, ok, []),
        ("ui", "method does not override any method from its superclass", "override func canBecomeFirstResponder() -> Bool {", view, ok, ["MyView"]),
        ("ui", "cannot find type 'PDFView' in scope", "let pdfView = PDFView()", plain, ok, []),
        ("platform", "cannot find 'unimpErr' in scope", "throw NSError(domain: NSOSStatusErrorDomain, code: unimpErr, userInfo: nil)", plain, ok, []),
        ("app", "cannot find 'Model' in scope", "Model.reloadDataIfNeeded()", plain, ok, []),
        ("app", "cannot find 'logger' in scope", "logger.debug(\"File changed\")", ("class Watcher: NSObject, NSFilePresenter {", {"Watcher"}, {"Watcher": ["NSObject", "NSFilePresenter"]}), ok, ["Watcher"]),
        ("quire", "'super' cannot be used in class 'Undoer' because it has no superclass", "super.undo()", undoer, ok, ["Undoer"]),
        ("ui", "'super' cannot be used in class 'MyView' because it has no superclass", "super.awakeFromNib()", view, ok, ["MyView"]),
        ("ui", "cannot find type 'UICollectionViewDataSource' in scope", "extension Picker: UICollectionViewDataSource {", plain, ok, []),
        ("ui", "cannot find type 'NSTableColumn' in scope", "let column = NSTableColumn(identifier: id)", plain, ok, []),
        ("platform", "cannot find type 'NSExtensionItem' in scope", "guard let item = items[0] as? NSExtensionItem else { return }", plain, ok, []),
        ("platform", "no type named 'UndoManager' in module 'Foundation'", "final class UndoManager: Foundation.UndoManager {", plain, ok, []),
        ("platform", "method does not override any method from its superclass", "override func undo() {", ("final class U: Foundation.UndoManager {", {"U"}, {"U": ["Foundation.UndoManager"]}), ok, ["U"]),
        ("app", "cannot find 'UTI' in scope", "switch UTI(kUTTypeJPEG as String) {", ("", set(), {}), ok, []),
        ("language", "expected expression in list of expressions", "foo(,)", plain, ok, []),
        ("quire", "cannot infer contextual base in reference to member 'yellow'", "annotation.color = .yellow", plain, ok, []),
    ]
    failures = 0
    for expected, message, text, (declaration, declared, supers), probes, enclosing in cases:
        stubbed = {"UTIKit", "UTI"} if "UTI(" in text else set()
        context = Context(api, declared, supers, stubbed, probes, {"annotation": "PDFAnnotation"})
        got = classify(message, text, context, enclosing)
        if got != expected:
            failures += 1
            print(f"self-test: {message!r} on {text!r}: expected {expected}, got {got}")
    print(f"self-test: {len(cases) - failures} of {len(cases)} classified as expected")
    return failures == 0


# Issue 28's own examples, compiled for real (--examples): what a client written from Apple's
# documentation meets. Each line's errors should all be "quire" until Quire has the API.
EXAMPLES = {
    "undo-document-coordinator.swift": """import Foundation

class Undoer: UndoManager {
    override func undo() {
        super.undo()
    }
    override func undoMenuTitle(forUndoActionName actionName: String) -> String { "Undo " + actionName }
}

class Notes: UIDocument {
    var text = ""
    override var fileModificationDate: Date? { get { super.fileModificationDate } set { super.fileModificationDate = newValue } }
    override func contents(forType typeName: String) throws -> Any { Data(text.utf8) }
    override func load(fromContents contents: Any, ofType typeName: String?) throws {}
    override func handleError(_ error: Error, userInteractionPermitted: Bool) { super.handleError(error, userInteractionPermitted: userInteractionPermitted) }
}

func run(url: URL) async {
    let doc = Notes(fileURL: url)
    let saved: Bool = await doc.save(to: url, for: .forCreating)
    let ok: Bool = await doc.open()
    let closed: Bool = await doc.close()
    let coordinator = NSFileCoordinator(filePresenter: nil)
    var error: NSError?
    coordinator.coordinate(writingItemAt: url, options: [], error: &error) { _ in }
    print(saved, ok, closed)
}
""",
    "qualified-names.swift": """import PDFKit
import UniformTypeIdentifiers
import MobileCoreServices
import UIKit

func check(_ url: URL) -> Int {
    let document = PDFKit.PDFDocument(url: url)
    let type: UniformTypeIdentifiers.UTType = .mpeg2TransportStream
    let controller = NSDocumentController.shared
    _ = (type, controller, UTTypeConformsTo(kUTTypeJPEG, kUTTypeImage))
    return document?.pageCount ?? 0
}
""",
}


def examples(modules):
    present = available_modules(modules)
    api = quire_api(modules, present)
    probes = check_probes(modules)
    with tempfile.TemporaryDirectory() as folder:
        for name, text in EXAMPLES.items():
            path = os.path.join(folder, name)
            with open(path, "w") as out:
                out.write(text)
            outcome = check(path, modules, present, api, probes)
            print(f"{name}: {len(outcome['errors'])} errors")
            for error in outcome["errors"]:
                print(f"  {error['class']:12} line {error['line']}: {error['message']}")


def write_errors(path, results, summary, modules):
    lines = []
    for item in summary:
        lines.append(f"{item['group']}: {item['free']} of {item['files']} files ({100 * item['free'] / item['files']:.0f}%) free of errors Quire must fix "
                     f"({item['quireErrors']} such errors)")
    lines.append(f"modules: {modules} (newest module file {newest_module_time(modules)})")
    lines.append("errors by class (all files): " + ", ".join(f"{name} {count}" for name, count in summary[-1]["errorsByClass"].items()))
    lines.append("")
    gaps = {}
    for result in results:
        for error in result["errors"]:
            if error["class"] == "quire" and not error.get("cascade"):
                key = re.sub(r"^value of (optional )?type", "type", error["message"]).strip()
                if not re.match(r"^(cannot find|type '[^']+' has no member|no such module)", key):
                    key += f"  [{error['text'][:90]}]"
                gaps.setdefault(key, set()).add(result["file"])
    lines.append(f"Distinct errors Quire must fix ({len(gaps)}; cascades left out), with the number of files:")
    for key, files in sorted(gaps.items(), key=lambda item: (-len(item[1]), item[0])):
        lines.append(f"  {len(files):3}  {key}")
    lines.append("")
    lines.append("Every error of class \"quire\" (fixing it needs a change in Quire), per file: line, message, source line.")
    lines.append("")
    for result in results:
        own = [error for error in result["errors"] if error["class"] == "quire"]
        if not own:
            continue
        lines.append(f"{result['repo']}/{result['path']}  ({result['file']}; {len(own)} errors)")
        for error in own:
            lines.append(f"  {error['line']}: {error['message']}")
            if error["text"]:
                lines.append(f"      | {error['text']}")
        lines.append("")
    lines.append("Errors not counted against Quire (class, file, line, message), for review:")
    for result in results:
        for error in result["errors"]:
            if error["class"] != "quire":
                lines.append(f"  {error['class']:12} {result['file']}:{error['line']}: {error['message']}")
    with open(path, "w") as out:
        out.write("\n".join(lines) + "\n")


def newest_module_time(modules):
    import time
    times = [os.path.getmtime(path) for path in glob.glob(os.path.join(modules, "*.swiftmodule"))]
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(max(times))) if times else "none"


def main():
    arguments = sys.argv[1:]
    if "--self-test" in arguments:
        sys.exit(0 if self_test() else 1)
    corpus, modules = corpus_folder(arguments), modules_folder(arguments)
    if not os.path.isdir(modules) or "Quire" not in available_modules(modules):
        raise SystemExit(f"typecheck: {modules} has no Quire module; build first (swift build)")
    if "--examples" in arguments:
        examples(modules)
        return
    os.makedirs(corpus, exist_ok=True)
    with open(os.path.join(HERE, "sources.json")) as handle:
        sources = json.load(handle)
    present = available_modules(modules)
    api = quire_api(modules, present)
    probes = check_probes(modules)
    for entry in sources:
        target = os.path.join(corpus, entry["file"])
        if not os.path.exists(target):
            fetch(entry, target)
    foundation = foundation_names(sources, corpus, modules)
    results = []
    for entry in sources:
        target = os.path.join(corpus, entry["file"])
        if not os.path.exists(target):
            fetch(entry, target)
        outcome = check(target, modules, present, api, probes, foundation, entry.get("ownMembers", {}).keys())
        outcome.update(file=entry["file"], repo=entry["repo"], path=entry["path"], added=entry.get("extension"))
        outcome["counts"] = {name: sum(1 for error in outcome["errors"] if error["class"] == name) for name in CLASSES}
        outcome["free"] = outcome["counts"]["quire"] == 0
        results.append(outcome)
    groups = [("the first 28 files", results[:28]), ("the first 46 files", results[:46]), ("all files", results)]
    summary = []
    for label, group in groups:
        summary.append({
            "group": label, "files": len(group), "free": sum(1 for result in group if result["free"]),
            "quireErrors": sum(result["counts"]["quire"] for result in group),
            "stubbed": sum(1 for result in group if result["stubbed"]),
            "noErrorAtAll": sum(1 for result in group if not result["errors"]),
            "errorsByClass": {name: sum(result["counts"][name] for result in group) for name in CLASSES},
        })
    if "--errors" in arguments:
        write_errors(arguments[arguments.index("--errors") + 1], results, summary, modules)
    if "--json" in arguments:
        print(json.dumps({"modules": modules, "offeredModulesPresent": [name for name in OFFERED_MODULES if name in present],
                          "probes": {old: {"current": current, "quireHasIt": ok} for old, (current, ok) in probes.items()},
                          "summary": summary, "results": results}, indent=1))
        return
    print(f"modules: {modules}; offered Apple modules present: {', '.join(name for name in OFFERED_MODULES if name in present) or 'none'}")
    for old, (current, ok) in probes.items():
        if not ok:
            print(f"probe failed: Quire lacks {current} (the current form of {old}); its old spelling counts against Quire")
    for result in results:
        state = "free" if result["free"] else "errors"
        counts = " ".join(f"{name} {result['counts'][name]}" for name in CLASSES if result["counts"][name])
        stubbed = f"  (stubbed: {', '.join(result['stubbed'])})" if result["stubbed"] else ""
        print(f"{state:6} [{counts or 'no errors'}]  {result['repo']}/{result['path']}{stubbed}")
        for error in result["errors"]:
            if error["class"] == "quire" or "--verbose" in arguments:
                print(f"           - {error['class']}: line {error['line']}: {error['message']}")
    for item in summary:
        print(f"{item['group']}: {item['free']} of {item['files']} files ({100 * item['free'] / item['files']:.0f}%) free of errors Quire must fix "
              f"({item['quireErrors']} such errors; {item['stubbed']} import a third-party module, stubbed empty; {item['noErrorAtAll']} with no error at all); "
              "errors by class: " + ", ".join(f"{name} {count}" for name, count in item["errorsByClass"].items()))


if __name__ == "__main__":
    main()
