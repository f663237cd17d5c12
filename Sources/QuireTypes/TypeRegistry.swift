public import Foundation
import Synchronization

/// The set of types a process knows, safe to use from any thread.
///
/// A registry holds, in this order of precedence (for identifiers and for tags):
/// 1. the embedding app's exported declarations (`UTExportedTypeDeclarations`),
/// 2. its imported declarations (`UTImportedTypeDeclarations`),
/// 3. the system's: Apple's core types, Quire's own types (TextBundle) and every MIME type
///    of the machine's freedesktop shared-mime-info database, mapped onto Apple's identifier
///    where Apple declares one (`image/png` is `public.png`) and otherwise named
///    `org.freedesktop.mime.MEDIA.SUBTYPE`.
///
/// Nothing is read at creation: the shared-mime-info files are read on the first lookup that
/// needs them, entries for the types Apple does not declare are made on the first lookup of
/// one, and the `magic` rules are parsed on the first content sniff.
public final class TypeRegistry: Sendable, Hashable, CustomDebugStringConvertible {
  /// What a registry starts with.
  public struct Configuration: Sendable {
    /// Whether Apple's core types and Quire's own declarations are included.
    public var includesCoreTypes: Bool
    /// Folders searched for a `mime` subfolder (shared-mime-info), most important first.
    /// Empty means no shared-mime-info types.
    public var dataDirectories: [URL]

    public init(includesCoreTypes: Bool = true, dataDirectories: [URL]) {
      self.includesCoreTypes = includesCoreTypes
      self.dataDirectories = dataDirectories
    }

    /// Core types plus the shared-mime-info folders of the XDG base directory
    /// specification: `$XDG_DATA_HOME` (default `~/.local/share`), then each of
    /// `$XDG_DATA_DIRS` (default `/usr/local/share:/usr/share`).
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> Configuration {
      var folders = [XDGBaseDirectory.dataHome.url(in: environment)]
      let dirs = environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share"
      for dir in dirs.split(separator: ":") where dir.hasPrefix("/") {
        folders.append(URL(fileURLWithPath: String(dir), isDirectory: true))
      }
      return Configuration(dataDirectories: folders)
    }
  }

  struct Entry: Sendable {
    var declaration: TypeDeclaration
    var origin: TypeDeclarationOrigin
    var order: Int
    /// The shared-mime-info type this entry stands for, when it stands for one.
    var freedesktopMIMEType: String?
  }

  struct State: Sendable {
    var entries: [String: Entry] = [:]
    /// Lower-cased identifier → identifier (identifiers compare case-insensitively).
    var foldedIdentifiers: [String: String] = [:]
    /// Lower-cased tag → identifiers, in the order they got the tag.
    var tagIndex = TagIndex()
    var nextOrder = 0
    var systemLoaded = false
    /// Canonical freedesktop MIME type → identifier.
    var identifierForMIME: [String: String] = [:]
    var database: SharedMIMEDatabase?
    var comments: [String: String] = [:]
    /// shared-mime-info types Apple does not declare, made into entries on first need.
    var pendingImport: PendingImport?
  }

  struct PendingImport: Sendable {
    var types: [String]
    var aliasesOf: [String: [String]]
    var extensionsOf: [String: [String]]
  }

  /// Lower-cased tag → identifiers, with the two common tag classes kept apart so that
  /// indexing the ~900 shared-mime-info types hashes each tag once.
  struct TagIndex: Sendable {
    var extensions: [String: [String]] = [:]
    var mimeTypes: [String: [String]] = [:]
    var others: [UTTagClass: [String: [String]]] = [:]

    mutating func add(_ identifier: String, for key: String, tagClass: UTTagClass) {
      func append(_ list: inout [String]) { if !list.contains(identifier) { list.append(identifier) } }
      if tagClass == .filenameExtension {
        append(&extensions[key, default: []])
      } else if tagClass == .mimeType {
        append(&mimeTypes[key, default: []])
      } else {
        append(&others[tagClass, default: [:]][key, default: []])
      }
    }

    func identifiers(for key: String, tagClass: UTTagClass) -> [String] {
      if tagClass == .filenameExtension { return extensions[key] ?? [] }
      if tagClass == .mimeType { return mimeTypes[key] ?? [] }
      return others[tagClass]?[key] ?? []
    }
  }

  let state: Mutex<State>
  let configuration: Configuration
  let magicState = Mutex<MagicDatabase?>(nil)

  /// The process-wide registry: core types, Quire's own types and the machine's
  /// shared-mime-info (found through `XDG_DATA_HOME` and `XDG_DATA_DIRS`).
  public static let shared: TypeRegistry = TypeRegistry(configuration: .standard())

  /// Makes a registry from `configuration`. Cheap: the files are read on first use.
  public init(configuration: Configuration) {
    self.configuration = configuration
    var initial = State()
    if configuration.includesCoreTypes {
      for declaration in BuiltInTypes.declarations { Self.insert(declaration, origin: .system, into: &initial) }
    }
    if configuration.dataDirectories.isEmpty && !configuration.includesCoreTypes { initial.systemLoaded = true }
    state = Mutex(initial)
  }

  /// Makes a registry holding exactly `declarations` (as system declarations), earlier ones
  /// taking precedence for tags; no core types and no shared-mime-info.
  public init(declarations: [TypeDeclaration]) {
    configuration = Configuration(includesCoreTypes: false, dataDirectories: [])
    var initial = State()
    for declaration in declarations { Self.insert(declaration, origin: .system, into: &initial) }
    initial.systemLoaded = true
    state = Mutex(initial)
  }

  public static func == (lhs: TypeRegistry, rhs: TypeRegistry) -> Bool { lhs === rhs }
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

  // MARK: Loading

  /// Runs `body` with every system declaration loaded, shared-mime-info types included.
  func withLoadedState<T>(_ body: (inout State) -> T) -> T {
    state.withLock { state in
      if !state.systemLoaded { loadSystem(into: &state) }
      if let pending = state.pendingImport {
        state.pendingImport = nil
        Self.materialize(pending, into: &state)
      }
      return body(&state)
    }
  }

  /// Runs `body` with the shared-mime-info files read and Apple's and Quire's types complete
  /// (their extra globs and aliases added), but without making entries for the ~800 types
  /// Apple does not declare: enough for identification and for core types.
  func withDatabaseState<T>(_ body: (inout State) -> T) -> T {
    state.withLock { state in
      if !state.systemLoaded { loadSystem(into: &state) }
      return body(&state)
    }
  }

  private func loadSystem(into state: inout State) {
    state.systemLoaded = true
    if configuration.includesCoreTypes, let data = BuiltInTypes.quireDeclarationsJSON.data(using: .utf8),
      let file = try? TypeDeclarationFile(data: data)
    {
      for declaration in file.exported { Self.insert(declaration, origin: .system, into: &state) }
    }
    let folders = SharedMIMEDatabase.mimeFolders(in: configuration.dataDirectories)
    guard !folders.isEmpty else { return }
    let database = SharedMIMEDatabase(folders: folders)
    state.database = database
    Self.importSharedMIME(database, into: &state)
  }

  /// Identifier for a freedesktop MIME type that Apple does not declare.
  static func freedesktopIdentifier(for mimeType: String) -> String {
    var bytes = Array("org.freedesktop.mime.".utf8)
    for byte in mimeType.asciiLowercased().utf8 {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."): bytes.append(byte)
      case UInt8(ascii: "/"): bytes.append(UInt8(ascii: "."))
      case UInt8(ascii: "+"): bytes += Array("-plus-".utf8)
      default: bytes.append(UInt8(ascii: "-"))
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  private static func importSharedMIME(_ database: SharedMIMEDatabase, into state: inout State) {
    // 1. Which identifier each MIME type becomes.
    var aliasesOf: [String: [String]] = [:]
    for (alias, canonical) in database.aliases { aliasesOf[canonical, default: []].append(alias) }
    for (key, list) in aliasesOf where list.count > 1 { aliasesOf[key] = list.sorted() }
    for entry in state.entries.values.sorted(by: { $0.order < $1.order }) {
      for mime in entry.declaration.tags[.mimeType] ?? [] {
        let canonical = database.canonical(mime)
        if state.identifierForMIME[canonical] == nil { state.identifierForMIME[canonical] = entry.declaration.identifier }
      }
    }
    for (mime, identifier) in BuiltInTypes.freedesktopMIMEToIdentifier where state.entries[identifier] != nil {
      let canonical = database.canonical(mime)
      if state.identifierForMIME[canonical] == nil { state.identifierForMIME[canonical] = identifier }
    }
    func identifier(for mime: String) -> String {
      let canonical = database.canonical(mime)
      return state.identifierForMIME[canonical] ?? freedesktopIdentifier(for: canonical)
    }
    // 2. Globs by type, best weight first (globs2 is sorted by weight).
    var extensionsOf: [String: [String]] = [:]
    for glob in database.globs.all {
      guard let ext = glob.filenameExtension else { continue }
      let ext2 = glob.caseSensitive ? ext : ext.asciiLowercased()
      if !(extensionsOf[glob.mimeType]?.contains(ext2) ?? false) { extensionsOf[glob.mimeType, default: []].append(ext2) }
    }
    // 3. Apple's and Quire's types get the extra tags now; the others become entries on
    //    first need (see `materialize`).
    var pending: [String] = []
    for mime in database.types {
      let canonical = database.canonical(mime)
      guard canonical == mime else { continue }
      let id = identifier(for: mime)
      let mimeTags = [mime] + (aliasesOf[mime] ?? [])
      let extensions = extensionsOf[mime] ?? []
      guard state.identifierForMIME[mime] != nil else {
        pending.append(mime)
        continue
      }
      if var entry = state.entries[id] {
        // An Apple (or Quire) type: keep its conformances and preferred tags, add the rest.
        var tags = entry.declaration.tags
        for value in mimeTags where !(tags[.mimeType]?.contains { $0.asciiLowercased() == value } ?? false) { tags[.mimeType, default: []].append(value) }
        for value in extensions where !(tags[.filenameExtension]?.contains { $0.asciiLowercased() == value.asciiLowercased() } ?? false) {
          tags[.filenameExtension, default: []].append(value)
        }
        entry.declaration.tags = tags
        if entry.freedesktopMIMEType == nil { entry.freedesktopMIMEType = mime }
        state.entries[id] = entry
        indexTags(of: entry.declaration, in: &state)
        continue
      }
    }
    if !pending.isEmpty {
      state.pendingImport = PendingImport(types: pending, aliasesOf: aliasesOf, extensionsOf: extensionsOf)
    }
  }

  /// Makes entries for the shared-mime-info types Apple does not declare.
  private static func materialize(_ pending: PendingImport, into state: inout State) {
    guard let database = state.database else { return }
    func identifier(for mime: String) -> String {
      let canonical = database.canonical(mime)
      return state.identifierForMIME[canonical] ?? freedesktopIdentifier(for: canonical)
    }
    for mime in pending.types {
      let id = identifier(for: mime)
      let mimeTags = [mime] + (pending.aliasesOf[mime] ?? [])
      let extensions = pending.extensionsOf[mime] ?? []
      var parents = (database.parents[mime] ?? []).map(identifier(for:))
      let media = mime.split(separator: "/").first.map(String.init) ?? ""
      if parents.isEmpty {
        parents = [media == "text" ? "public.plain-text" : media == "inode" ? "public.item" : "public.data"]
      }
      let mediaParent = ["image": "public.image", "audio": "public.audio", "video": "public.movie", "font": "public.font"][media]
      if let mediaParent, !parents.contains(mediaParent) { parents.append(mediaParent) }
      parents = parents.filter { $0 != id }
      var tags: [UTTagClass: [String]] = [.mimeType: mimeTags]
      if !extensions.isEmpty { tags[.filenameExtension] = extensions }
      let declaration = TypeDeclaration(identifier: id, conformsTo: parents, description: nil, tags: tags)
      insert(declaration, origin: .sharedMIMEInfo, into: &state, freedesktopMIMEType: mime)
      state.identifierForMIME[mime] = id
    }
  }

  @discardableResult
  static func insert(
    _ declaration: TypeDeclaration, origin: TypeDeclarationOrigin, into state: inout State,
    freedesktopMIMEType: String? = nil
  ) -> Bool {
    let folded = declaration.identifier.asciiLowercased()
    if let existingID = state.foldedIdentifiers[folded] {
      if let existing = state.entries[existingID], existing.origin < origin { return false }
      if existingID != declaration.identifier { state.entries[existingID] = nil }
    }
    let previous = state.entries[declaration.identifier]
    state.entries[declaration.identifier] = Entry(
      declaration: declaration, origin: origin, order: state.nextOrder,
      freedesktopMIMEType: freedesktopMIMEType ?? previous?.freedesktopMIMEType)
    state.foldedIdentifiers[folded] = declaration.identifier
    state.nextOrder += 1
    indexTags(of: declaration, in: &state)
    return true
  }

  private static func indexTags(of declaration: TypeDeclaration, in state: inout State) {
    for (tagClass, values) in declaration.tags {
      for value in values {
        let key = value.asciiLowercased()
        state.tagIndex.add(declaration.identifier, for: key, tagClass: tagClass)
      }
    }
  }

  // MARK: Declarations of an app

  /// Adds or replaces one declaration as the app's own (exported), without checks.
  /// Prefer ``register(_:)``, which checks declarations and reports problems.
  public func add(_ declaration: TypeDeclaration) {
    withLoadedState { state in
      if let old = state.foldedIdentifiers[declaration.identifier.asciiLowercased()], var entry = state.entries[old], entry.origin < .exported {
        entry.origin = .exported
        state.entries[old] = entry
      }
      Self.insert(declaration, origin: .exported, into: &state)
    }
  }

  /// Reads an Info.plist-shaped property list or JSON file and registers its
  /// `UTExportedTypeDeclarations` and `UTImportedTypeDeclarations`.
  ///
  /// - Returns: The problems found, one per entry left out; the other entries are registered.
  /// - Throws: ``QuireError`` naming `url` when the file cannot be read or parsed at all.
  @discardableResult
  public func loadDeclarations(from url: URL) throws -> [TypeDeclarationDiagnostic] {
    register(try TypeDeclarationFile(contentsOf: url))
  }

  /// Registers the declarations of `file`, checking each one: a valid identifier outside the
  /// reserved `public.` and `dyn.` domains, known parents (in the registry or the same file),
  /// and no conformance cycle. Entries that fail are left out and reported.
  @discardableResult
  public func register(_ file: TypeDeclarationFile) -> [TypeDeclarationDiagnostic] {
    struct Candidate {
      var declaration: TypeDeclaration
      var origin: TypeDeclarationOrigin
      var list: String
      var index: Int
    }
    var candidates: [Candidate] = []
    for (declaration, index) in zip(file.exported, file.exportedIndices) {
      candidates.append(Candidate(declaration: declaration, origin: .exported, list: "UTExportedTypeDeclarations", index: index))
    }
    for (declaration, index) in zip(file.imported, file.importedIndices) {
      candidates.append(Candidate(declaration: declaration, origin: .imported, list: "UTImportedTypeDeclarations", index: index))
    }
    var diagnostics = file.diagnostics
    func reject(_ candidate: Candidate, _ message: String) {
      diagnostics.append(
        TypeDeclarationDiagnostic(file: file.file, list: candidate.list, index: candidate.index, identifier: candidate.declaration.identifier, message: message)
      )
    }
    withLoadedState { state in
      // Checks done here too, so declarations built in code get them as well.
      candidates = candidates.filter { candidate in
        if let problem = TypeDeclarationFile.problem(with: candidate.declaration.identifier, origin: candidate.origin) {
          reject(candidate, problem)
          return false
        }
        return true
      }
      // Unknown parents, to a fixed point (a rejected entry takes its children with it).
      var changed = true
      while changed {
        changed = false
        let batch = Set(candidates.map { $0.declaration.identifier.asciiLowercased() })
        candidates = candidates.filter { candidate in
          let unknown = candidate.declaration.conformsTo.filter {
            state.foldedIdentifiers[$0.asciiLowercased()] == nil && !batch.contains($0.asciiLowercased()) && DynamicTypeIdentifier.decode($0) == nil
          }
          guard unknown.isEmpty else {
            reject(
              candidate,
              "it conforms to \(unknown.map { "'\($0)'" }.joined(separator: ", ")), which no declaration defines. Declare the parent (as an imported type) or fix the name."
            )
            changed = true
            return false
          }
          return true
        }
      }
      // Cycles: a candidate must not be reachable from its own parents.
      var parentsOf: [String: [String]] = [:]
      for entry in state.entries.values {
        parentsOf[entry.declaration.identifier.asciiLowercased()] = entry.declaration.conformsTo.map { $0.asciiLowercased() }
      }
      for candidate in candidates {
        parentsOf[candidate.declaration.identifier.asciiLowercased()] = candidate.declaration.conformsTo.map { $0.asciiLowercased() }
      }
      var cyclic: Set<String> = []
      for candidate in candidates {
        let start = candidate.declaration.identifier.asciiLowercased()
        var stack = parentsOf[start] ?? []
        var seen: Set<String> = []
        while let next = stack.popLast() {
          if next == start {
            cyclic.insert(start)
            break
          }
          if seen.insert(next).inserted { stack.append(contentsOf: parentsOf[next] ?? []) }
        }
      }
      candidates = candidates.filter { candidate in
        guard cyclic.contains(candidate.declaration.identifier.asciiLowercased()) else { return true }
        reject(
          candidate,
          "its conformances form a cycle (it conforms to itself through \(candidate.declaration.conformsTo.joined(separator: ", "))). Remove one conformance.")
        return false
      }
      for candidate in candidates { Self.insert(candidate.declaration, origin: candidate.origin, into: &state) }
    }
    return diagnostics
  }

  // MARK: Lookup

  func declaration(for identifier: String) -> TypeDeclaration? {
    // Core types' tags are complete once shared-mime-info's files are read; other
    // identifiers may need the rest of the import.
    if let quick = withDatabaseState({ $0.entries[identifier]?.declaration }) { return quick }
    let found = withLoadedState { state in
      state.entries[identifier]?.declaration
        ?? state.foldedIdentifiers[identifier.asciiLowercased()].flatMap { state.entries[$0]?.declaration }
    }
    if let found { return found }
    guard let contents = DynamicTypeIdentifier.decode(identifier) else { return nil }
    return TypeDeclaration(identifier: identifier, conformsTo: contents.conformsTo, tags: contents.tags)
  }

  /// The declaration behind `type` in this registry (for a dynamic type, what its
  /// identifier encodes), or nil when there is none.
  public func declaration(of type: UTType) -> TypeDeclaration? {
    declaration(for: type.identifier)
  }

  /// How a declaration entered the registry, or nil for dynamic and unknown types.
  public func origin(ofTypeWithIdentifier identifier: String) -> TypeDeclarationOrigin? {
    if let quick = withDatabaseState({ $0.entries[identifier]?.origin }) { return quick }
    return withLoadedState { state in state.foldedIdentifiers[identifier.asciiLowercased()].flatMap { state.entries[$0]?.origin } }
  }

  /// The shared-mime-info MIME type a type stands for, when it stands for one.
  func freedesktopMIMEType(of identifier: String) -> String? {
    withLoadedState { $0.entries[identifier]?.freedesktopMIMEType }
  }

  /// The identifier a (canonical or alias) freedesktop MIME type became.
  func identifier(forFreedesktopMIMEType mime: String) -> String? {
    withDatabaseState { state in
      guard let database = state.database else { return state.identifierForMIME[mime.asciiLowercased()] }
      let canonical = database.canonical(mime)
      if let known = state.identifierForMIME[canonical] { return known }
      // Not made into an entry yet: the identifier it will get.
      return database.typeSet.contains(canonical) ? Self.freedesktopIdentifier(for: canonical) : nil
    }
  }

  func description(of identifier: String) -> String? {
    if let quick = withDatabaseState({ $0.entries[identifier]?.declaration.description }) { return quick }
    let (declared, mime, cached, database) = withLoadedState { state -> (String?, String?, String?, SharedMIMEDatabase?) in
      let entry = state.entries[identifier]
      return (entry?.declaration.description, entry?.freedesktopMIMEType, state.comments[identifier], state.database)
    }
    if let declared { return declared }
    if let cached { return cached }
    guard let mime, let comment = database?.comment(for: mime) else { return nil }
    state.withLock { $0.comments[identifier] = comment }
    return comment
  }

  /// The type with this identifier (compared without regard to case), or a dynamic type for
  /// a well-formed `dyn.` identifier; nil otherwise.
  public func type(withIdentifier identifier: String) -> UTType? {
    if withDatabaseState({ $0.entries[identifier] != nil }) { return UTType(identifier: identifier, registry: self) }
    if let known = withLoadedState({ $0.foldedIdentifiers[identifier.asciiLowercased()] }) {
      return UTType(identifier: known, registry: self)
    }
    guard DynamicTypeIdentifier.decode(identifier) != nil else { return nil }
    return UTType(identifier: identifier, registry: self)
  }

  /// Every declared type carrying `tag`, most important first (exported, imported, system;
  /// then in declaration order), optionally only those conforming to `supertype`.
  public func types(forTag tag: String, tagClass: UTTagClass, conformingTo supertype: UTType? = nil) -> [UTType] {
    let identifiers = withLoadedState { state -> [String] in
      var key = tag.asciiLowercased()
      if tagClass == .filenameExtension, key.hasPrefix(".") { key.removeFirst() }
      var ids = state.tagIndex.identifiers(for: key, tagClass: tagClass)
      if ids.isEmpty, tagClass == .mimeType, let canonical = state.database?.canonical(key), canonical != key {
        ids = state.tagIndex.identifiers(for: canonical, tagClass: tagClass)
      }
      let ranked = ids.enumerated().compactMap { position, id -> (Int, Int, String)? in
        guard let entry = state.entries[id],
          entry.declaration.tags[tagClass]?.contains(where: { $0.asciiLowercased() == key || state.database?.canonical($0) == key }) ?? false
        else { return nil }
        return (entry.origin.rawValue, position, id)
      }
      return ranked.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }.map(\.2)
    }
    var seen: Set<String> = []
    return identifiers.filter { seen.insert($0).inserted }.map { UTType(identifier: $0, registry: self) }
      .filter { type in supertype.map { type.conforms(to: $0) } ?? true }
  }

  /// The preferred declared type carrying `tag`.
  public func type(forTag tag: String, tagClass: UTTagClass, conformingTo supertype: UTType? = nil) -> UTType? {
    // An app's or a core type outranks every shared-mime-info type: no need to import those.
    if let core = coreType(forTag: tag, tagClass: tagClass, conformingTo: supertype) { return core.type }
    return types(forTag: tag, tagClass: tagClass, conformingTo: supertype).first
  }

  /// The preferred declared type for a filename extension (with or without the dot).
  public func type(forFilenameExtension filenameExtension: String, conformingTo supertype: UTType? = nil) -> UTType? {
    type(forTag: filenameExtension, tagClass: .filenameExtension, conformingTo: supertype)
  }

  /// The preferred type for `tag`: the declared one, or else a dynamic type conforming to
  /// `supertype`, as Apple's `UTType(tag:tagClass:conformingTo:)`. Nil for an empty tag.
  public func preferredType(forTag tag: String, tagClass: UTTagClass, conformingTo supertype: UTType?) -> UTType? {
    guard !tag.isEmpty else { return nil }
    if let declared = type(forTag: tag, tagClass: tagClass, conformingTo: supertype) { return declared }
    let identifier = DynamicTypeIdentifier.make(tag: tag, tagClass: tagClass, conformingTo: supertype.map { [$0.identifier] } ?? [])
    return UTType(identifier: identifier, registry: self)
  }

  /// Every identifier `identifier` conforms to, directly or not, without itself.
  func ancestors(of identifier: String) -> Set<String> {
    Set(orderedAncestors(of: identifier))
  }

  /// Ancestors in breadth-first order, nearest first.
  func orderedAncestors(of identifier: String) -> [String] {
    func walk(_ state: inout State, from start: String) -> [String] {
      let entries = state.entries
      func parents(_ id: String) -> [String] {
        entries[id]?.declaration.conformsTo ?? DynamicTypeIdentifier.decode(id)?.conformsTo ?? []
      }
      var seen: Set<String> = [start]
      var order: [String] = []
      var queue = parents(start)
      var index = 0
      while index < queue.count {
        let next = queue[index]
        index += 1
        guard seen.insert(next).inserted else { continue }
        order.append(next)
        queue.append(contentsOf: parents(next))
      }
      return order
    }
    // Core types conform only to core types: nothing needs to be read for them.
    if let ancestors = state.withLock({ $0.entries[identifier]?.origin == .system ? walk(&$0, from: identifier) : nil }) {
      return ancestors
    }
    return withLoadedState { state in
      let start = state.entries[identifier] != nil ? identifier : state.foldedIdentifiers[identifier.asciiLowercased()] ?? identifier
      return walk(&state, from: start)
    }
  }

  /// The best type an app or the core (Apple, Quire) declares with `tag`, conforming to
  /// `supertype`, and where it came from. shared-mime-info types are left out, so nothing
  /// beyond the database files needs to be read.
  func coreType(forTag tag: String, tagClass: UTTagClass, conformingTo supertype: UTType?) -> (type: UTType, origin: TypeDeclarationOrigin)? {
    var key = tag.asciiLowercased()
    if tagClass == .filenameExtension, key.hasPrefix(".") { key.removeFirst() }
    let candidates = withDatabaseState { state -> [(String, TypeDeclarationOrigin)] in
      let ranked = state.tagIndex.identifiers(for: key, tagClass: tagClass).enumerated().compactMap {
        position, id -> (Int, Int, String, TypeDeclarationOrigin)? in
        guard let entry = state.entries[id], entry.origin <= .system,
          entry.declaration.tags[tagClass]?.contains(where: { $0.asciiLowercased() == key }) ?? false
        else { return nil }
        return (entry.origin.rawValue, position, id, entry.origin)
      }
      return ranked.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }.map { ($0.2, $0.3) }
    }
    for (id, origin) in candidates {
      let type = UTType(identifier: id, registry: self)
      if supertype.map({ type.conforms(to: $0) }) ?? true { return (type, origin) }
    }
    return nil
  }

  /// Every declared type that conforms to `type` (including `type`), by identifier.
  public func types(conformingTo type: UTType) -> [UTType] {
    let all = withLoadedState { Array($0.entries.keys) }.sorted()
    return all.map { UTType(identifier: $0, registry: self) }.filter { $0.conforms(to: type) }
  }

  /// Every declared type, by identifier.
  public var allTypes: [UTType] {
    withLoadedState { Array($0.entries.keys) }.sorted().map { UTType(identifier: $0, registry: self) }
  }

  // MARK: Tree

  /// The registry as a tree: each type under each of its parents, children sorted by
  /// identifier; a subtree already printed shows as `… (see above)`.
  public var debugDescription: String { treeDescription() }

  /// The tree of types under `root` (or under every type without parents), one per line,
  /// with each type's preferred extension and MIME type.
  public func treeDescription(conformingTo root: UTType? = nil) -> String {
    let entries = withLoadedState { $0.entries }
    var children: [String: [String]] = [:]
    var roots: [String] = []
    for (id, entry) in entries {
      let parents = entry.declaration.conformsTo.filter { entries[$0] != nil }
      if parents.isEmpty { roots.append(id) }
      for parent in Set(parents) { children[parent, default: []].append(id) }
    }
    for key in children.keys { children[key]?.sort() }
    var lines: [String] = []
    var printed: Set<String> = []
    func label(_ id: String) -> String {
      guard let declaration = entries[id]?.declaration else { return id }
      var facts: [String] = []
      if let ext = declaration.tags[.filenameExtension]?.first { facts.append(".\(ext)") }
      if let mime = declaration.tags[.mimeType]?.first { facts.append(mime) }
      return facts.isEmpty ? id : "\(id) (\(facts.joined(separator: ", ")))"
    }
    func walk(_ id: String, prefix: String, isLast: Bool, isRoot: Bool) {
      let branch = isRoot ? "" : (isLast ? "└─ " : "├─ ")
      let kids = children[id] ?? []
      if !printed.insert(id).inserted, !kids.isEmpty {
        lines.append(prefix + branch + id + " … (see above)")
        return
      }
      lines.append(prefix + branch + label(id))
      let childPrefix = isRoot ? "" : prefix + (isLast ? "   " : "│  ")
      for (index, kid) in kids.enumerated() {
        walk(kid, prefix: childPrefix, isLast: index == kids.count - 1, isRoot: false)
      }
    }
    if let root {
      walk(root.identifier, prefix: "", isLast: true, isRoot: true)
    } else {
      for id in roots.sorted() { walk(id, prefix: "", isLast: true, isRoot: true) }
    }
    return lines.joined(separator: "\n")
  }

  /// Reads what identification needs (the shared-mime-info files and the magic rules) now,
  /// so that a first identification later finds them read. `quire` calls it on another core
  /// while it parses a command's arguments (`StartupPrefetch`).
  package func prepareForIdentification() {
    _ = magicDatabase
  }

  // MARK: shared-mime-info access for identification

  var sharedMIMEDatabase: SharedMIMEDatabase? { withDatabaseState { $0.database } }

  /// The magic rules, parsed on first use.
  var magicDatabase: MagicDatabase? {
    guard let database = sharedMIMEDatabase else { return nil }
    return magicState.withLock { magic in
      if magic == nil { magic = MagicDatabase(folders: database.folders) }
      return magic
    }
  }
}
