public import Foundation
import QuireSystem
public import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

extension TypeRegistry {
  /// The type of the file at `url`, judged from its name and content; `nil` when it does not
  /// exist. See ``identifyFile(at:options:)-(FilePath,_)``.
  public func type(forFileAt url: URL) -> UTType? {
    (try? identifyFile(at: url))?.type
  }

  /// Identifies the file at `url`. See ``identifyFile(at:options:)-(FilePath,_)``.
  public func identifyFile(at url: URL, options: IdentificationOptions = .init()) throws -> TypeIdentification {
    try identifyFile(at: FilePath(url.path), options: options)
  }

  /// Identifies the file at `path` from its name (shared-mime-info globs, declared
  /// extensions) and its content (shared-mime-info magic on a bounded prefix), the way GIO's
  /// `g_content_type_guess` combines them: one name match wins; several are settled by a
  /// reliable content rule (priority ≥ 80) or by the one the content is a parent of; no name
  /// match leaves it to the content. An extension declared by the app beats the database.
  ///
  /// Never blocks and never reads more than the bound: folders, packages, FIFOs, devices,
  /// sockets and dangling links are answered from `lstat(2)`/`stat(2)` without opening them;
  /// regular files are opened with `O_NONBLOCK` and checked again with `fstat(2)`. A file
  /// whose content cannot be read is judged by its name, and the evidence says why.
  ///
  /// - Parameters:
  ///   - path: The file; any bytes (names with newlines or invalid UTF-8 are fine).
  ///   - options: The read bound, whether to read, whether to follow symbolic links.
  /// - Throws: ``QuireError`` (`fileMissing`, `permissionDenied`) when the path cannot be
  ///   looked up at all.
  public func identifyFile(at path: FilePath, options: IdentificationOptions = .init()) throws -> TypeIdentification {
    var name = path.lastComponent.map { String(decoding: $0.string.utf8, as: UTF8.self) } ?? ""
    var info: stat
    switch SystemCalls.lstat(path).mapError(\.errno) {
    case .success(let value): info = value
    case .failure(let error):
      let code: QuireError.Code =
        error == .permissionDenied ? .permissionDenied : error == .noSuchFileOrDirectory || error == .notDirectory ? .fileMissing : .systemCallFailed
      throw QuireError(
        code,
        "Cannot identify '\(Self.displayName(path))': \(error == .noSuchFileOrDirectory ? "it does not exist" : "it cannot be looked up"). Check the path.",
        url: URL(fileURLWithPath: path.string), cause: error)
    }
    var notes: [TypeIdentification.Evidence] = []
    if info.st_mode & S_IFMT == S_IFLNK {
      guard options.followsSymbolicLinks else {
        return fileSystemAnswer("public.symlink", mime: "inode/symlink", detail: "a symbolic link (not followed)")
      }
      switch SystemCalls.stat(path).mapError(\.errno) {
      case .success(let target):
        info = target
        // The target's name counts, as when the target itself is identified.
        if let resolved = SystemCalls.resolvedPath(path) {
          name = resolved.lastComponent.map { String(decoding: $0.string.utf8, as: UTF8.self) } ?? name
        }
        notes.append(.init(kind: .note, detail: "a symbolic link; its target '\(name)' was identified"))
      case .failure(let error):
        return fileSystemAnswer("public.symlink", mime: "inode/symlink", detail: "a symbolic link whose target cannot be reached (\(error))")
      }
    }
    switch info.st_mode & S_IFMT {
    case S_IFDIR: return identifyFolder(named: name, notes: notes)
    case S_IFIFO: return fileSystemAnswer(nil, mime: "inode/fifo", detail: "a named pipe (FIFO); not opened, so nothing was read", notes: notes)
    case S_IFCHR: return fileSystemAnswer(nil, mime: "inode/chardevice", detail: "a character device; not opened", notes: notes)
    case S_IFBLK: return fileSystemAnswer(nil, mime: "inode/blockdevice", detail: "a block device; not opened", notes: notes)
    case S_IFSOCK: return fileSystemAnswer(nil, mime: "inode/socket", detail: "a socket; not opened", notes: notes)
    default: break
    }
    guard options.readsContent else { return decide(name: name, content: nil, notes: notes) }

    let bound = readBound(options)
    switch SystemCalls.open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY).mapError(\.errno) {
    case .failure(let error):
      notes.append(.init(kind: .note, detail: "the content could not be read (\(error)); judged by name only"))
      return decide(name: name, content: nil, notes: notes)
    case .success(let fd):
      defer { SystemCalls.release(fd) }
      // The object may have been swapped between lstat and open: trust only fstat now.
      if case .success(let opened) = SystemCalls.fstat(fd), opened.st_mode & S_IFMT != S_IFREG || opened.st_ino != info.st_ino {
        notes.append(.init(kind: .note, detail: "the file changed while it was being identified; judged by name only"))
        return decide(name: name, content: nil, notes: notes)
      }
      var buffer = [UInt8](repeating: 0, count: bound)
      let count = buffer.withUnsafeMutableBytes { SystemCalls.readPrefix(fd, into: $0) }
      return buffer.withUnsafeBytes { bytes in
        decide(name: name, content: UnsafeRawBufferPointer(rebasing: bytes[0..<count]), notes: notes)
      }
    }
  }

  /// Identifies bytes already in memory, with an optional file name, the same way.
  public func identify(fileName: String?, contents: Data) -> TypeIdentification {
    contents.withUnsafeBytes { decide(name: fileName ?? "", content: $0, notes: []) }
  }

  /// How many bytes identification reads by default (see ``IdentificationOptions``).
  public var defaultReadBound: Int { readBound(IdentificationOptions()) }

  func readBound(_ options: IdentificationOptions) -> Int {
    if let bound = options.maximumBytesRead { return max(0, bound) }
    let extent = magicDatabase?.maximumExtent ?? 0
    return min(max(extent, 4096), 65536)
  }

  static func displayName(_ path: FilePath) -> String {
    let name = path.lastComponent?.string ?? path.string
    return name.unicodeScalars.map { $0.value < 0x20 || $0 == "\u{FFFD}" ? "?" : String($0) }.joined()
  }

  // MARK: Deciding

  private func typeFor(mime: String) -> UTType {
    if let id = identifier(forFreedesktopMIMEType: mime) { return UTType(identifier: id, registry: self) }
    return preferredType(forTag: mime, tagClass: .mimeType, conformingTo: nil) ?? UTType(identifier: "public.data", registry: self)
  }

  private func fileSystemAnswer(
    _ identifier: String?, mime: String, detail: String, notes: [TypeIdentification.Evidence] = []
  ) -> TypeIdentification {
    let type =
      identifier.flatMap { self.type(withIdentifier: $0) } ?? self.identifier(forFreedesktopMIMEType: mime).map { UTType(identifier: $0, registry: self) }
      ?? UTType(identifier: "public.item", registry: self)
    return TypeIdentification(
      type: type, mimeType: mime, source: .fileSystem,
      evidence: [.init(kind: .fileSystem, mimeType: mime, detail: detail)] + notes, confidence: 1, disagreement: nil, bytesRead: 0)
  }

  private func identifyFolder(named name: String, notes: [TypeIdentification.Evidence]) -> TypeIdentification {
    let ext = Self.filenameExtension(of: name)
    if !ext.isEmpty,
      let package = coreType(forTag: ext, tagClass: .filenameExtension, conformingTo: UTType(identifier: "com.apple.package", registry: self))?.type
    {
      return TypeIdentification(
        type: package, mimeType: package.preferredMIMEType, source: .fileSystem,
        evidence: [
          .init(kind: .fileSystem, mimeType: "inode/directory", detail: "a folder"),
          .init(kind: .declaredExtension, rule: ext, detail: "extension '.\(ext)' is declared as a package (\(package.identifier))"),
        ] + notes, confidence: 1, disagreement: nil, bytesRead: 0)
    }
    return fileSystemAnswer("public.folder", mime: "inode/directory", detail: "a folder", notes: notes)
  }

  static func filenameExtension(of name: String) -> String {
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
    return String(name[name.index(after: dot)...])
  }

  /// xdgmime's fallback (no control characters but tab, LF and CR in the first 128 bytes),
  /// else GIO's `looks_like_text` over all bytes read (no control characters but whitespace
  /// and backspace): the two checks `g_content_type_guess` makes, in its order.
  static func looksLikeText(_ bytes: UnsafeRawBufferPointer) -> Bool {
    if !bytes.prefix(128).contains(where: { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }) { return true }
    for byte in bytes where byte < 0x20 || byte == 0x7F {
      if byte == 0x09 || byte == 0x0A || byte == 0x0B || byte == 0x0C || byte == 0x0D || byte == 0x08 { continue }
      return false
    }
    return true
  }

  private struct ContentVerdict {
    var mime: String
    var evidence: TypeIdentification.Evidence
    var priority: Int?
    var isUnknown: Bool
  }

  private func sniff(_ content: UnsafeRawBufferPointer) -> ContentVerdict {
    if content.isEmpty {
      return ContentVerdict(
        mime: "application/x-zerosize", evidence: .init(kind: .empty, mimeType: "application/x-zerosize", detail: "the file is empty"), priority: nil,
        isUnknown: true)
    }
    if let match = magicDatabase?.match(content) {
      let rule = "offset \(match.offset)\(match.rangeLength > 1 ? "…\(match.offset + match.rangeLength - 1)" : "") = \(Self.printable(match.value))"
      return ContentVerdict(
        mime: match.mimeType,
        evidence: .init(
          kind: .magic, mimeType: match.mimeType, rule: rule, priority: match.priority,
          detail:
            "shared-mime-info magic for \(match.mimeType) matched (priority \(match.priority), rule \(rule)\(match.nested > 0 ? " and \(match.nested) nested" : ""))"
        ),
        priority: match.priority, isUnknown: false)
    }
    if Self.looksLikeText(content) {
      return ContentVerdict(
        mime: "text/plain",
        evidence: .init(kind: .textHeuristic, mimeType: "text/plain", detail: "no magic rule matched; the first \(content.count) bytes look like text"),
        priority: nil, isUnknown: false)
    }
    return ContentVerdict(
      mime: "application/octet-stream",
      evidence: .init(kind: .binaryFallback, mimeType: "application/octet-stream", detail: "no magic rule matched and the bytes are not text"), priority: nil,
      isUnknown: true)
  }

  static func printable(_ bytes: [UInt8]) -> String {
    var text = "\""
    for byte in bytes.prefix(24) {
      if byte >= 0x20 && byte < 0x7F && byte != 0x22 && byte != 0x5C {
        text.unicodeScalars.append(Unicode.Scalar(byte))
      } else {
        text += String(format: "\\x%02x", byte)
      }
    }
    return text + (bytes.count > 24 ? "…\"" : "\"")
  }

  /// The types `name` gives: an app's declared extension, else the shared MIME database's
  /// globs, else a core type's extension; each with the evidence for it.
  private func typesByName(_ name: String, extension ext: String, database: SharedMIMEDatabase?)
    -> [(type: UTType, mime: String?, evidence: TypeIdentification.Evidence)]
  {
    var nameTypes: [(type: UTType, mime: String?, evidence: TypeIdentification.Evidence)] = []
    // A file's bytes are data: a package extension on a plain file does not make it a package.
    // (shared-mime-info's own types come in through the globs below.)
    let core = ext.isEmpty ? nil : coreType(forTag: ext, tagClass: .filenameExtension, conformingTo: UTType(identifier: "public.data", registry: self))
    let declared = core?.type
    let declaredOrigin = core?.origin
    if let declared, let declaredOrigin, declaredOrigin <= .imported {
      nameTypes = [
        (
          declared, declared.preferredMIMEType,
          .init(kind: .declaredExtension, rule: ext, detail: "extension '.\(ext)' is declared by the app (\(declaredOrigin)) as \(declared.identifier)")
        )
      ]
    } else if let database, !name.isEmpty {
      var seen: Set<String> = []
      for glob in database.globs.match(name) where seen.insert(glob.mimeType).inserted {
        nameTypes.append(
          (
            typeFor(mime: glob.mimeType), glob.mimeType,
            .init(
              kind: .glob, mimeType: glob.mimeType, rule: glob.pattern, weight: glob.weight,
              detail: "glob '\(glob.pattern)' (weight \(glob.weight)) names \(glob.mimeType)")
          ))
      }
    }
    if nameTypes.isEmpty, let declared, declaredOrigin == .system {
      nameTypes = [
        (declared, declared.preferredMIMEType, .init(kind: .declaredExtension, rule: ext, detail: "extension '.\(ext)' is declared by \(declared.identifier)"))
      ]
    }
    return nameTypes
  }

  private func decide(name: String, content: UnsafeRawBufferPointer?, notes: [TypeIdentification.Evidence]) -> TypeIdentification {
    let database = sharedMIMEDatabase
    let ext = Self.filenameExtension(of: name)
    // 1. The name: an app's declared extension, else the globs, else a core type's extension.
    let nameTypes = typesByName(name, extension: ext, database: database)
    // 2. The content.
    let verdict = content.map(sniff)
    let bytesRead = content?.count ?? 0

    func result(
      _ type: UTType, mime: String?, source: TypeIdentification.Source, evidence: [TypeIdentification.Evidence], confidence: Double,
      disagreement: TypeIdentification.Disagreement? = nil
    ) -> TypeIdentification {
      TypeIdentification(
        type: type, mimeType: mime ?? type.preferredMIMEType, source: source, evidence: evidence + notes, confidence: confidence, disagreement: disagreement,
        bytesRead: bytesRead)
    }
    func agrees(_ name: (type: UTType, mime: String?, evidence: TypeIdentification.Evidence), _ verdict: ContentVerdict) -> Bool {
      if verdict.isUnknown { return true }
      // A rule below the spec's default priority (50) is a hint, such as "//" for C: it
      // does not contradict a name.
      if let priority = verdict.priority, priority < 50 { return true }
      if let mime = name.mime, let database, database.isSubclass(mime, of: verdict.mime) || database.isSubclass(verdict.mime, of: mime) { return true }
      let contentType = typeFor(mime: verdict.mime)
      return name.type.conforms(to: contentType) || contentType.conforms(to: name.type)
    }

    switch (nameTypes.count, verdict) {
    case (0, nil):
      // No name match and no content: a dynamic type for the extension, or plain data.
      if !ext.isEmpty, let dynamic = preferredType(forTag: ext, tagClass: .filenameExtension, conformingTo: UTType(identifier: "public.data", registry: self)) {
        return result(
          dynamic, mime: nil, source: .fileName,
          evidence: [.init(kind: .declaredExtension, rule: ext, detail: "no type declares '.\(ext)'; a dynamic type stands for it")], confidence: 0.2)
      }
      return result(
        UTType(identifier: "public.data", registry: self), mime: "application/octet-stream", source: .fileName,
        evidence: [.init(kind: .note, detail: "nothing in the name and no content to read")], confidence: 0.1)
    case (0, let verdict?):
      let confidence: Double
      switch verdict.evidence.kind {
      case .magic: confidence = min(0.95, 0.5 + Double(verdict.priority ?? 50) / 200)
      case .textHeuristic: confidence = 0.5
      case .empty: confidence = 0.9
      default: confidence = 0.2
      }
      return result(typeFor(mime: verdict.mime), mime: verdict.mime, source: .content, evidence: [verdict.evidence], confidence: confidence)
    case (1, nil):
      return result(nameTypes[0].type, mime: nameTypes[0].mime, source: .fileName, evidence: [nameTypes[0].evidence], confidence: 0.8)
    case (1, let verdict?):
      let name = nameTypes[0]
      if agrees(name, verdict) {
        let strong = verdict.evidence.kind == .magic && (verdict.priority ?? 0) >= 50
        let confidence = strong ? 0.99 : verdict.evidence.kind == .textHeuristic || verdict.evidence.kind == .magic ? 0.9 : 0.8
        return result(name.type, mime: name.mime, source: .fileName, evidence: [name.evidence, verdict.evidence], confidence: confidence)
      }
      return result(
        name.type, mime: name.mime, source: .fileName, evidence: [name.evidence, verdict.evidence], confidence: 0.5,
        disagreement: .init(nameType: name.type, contentType: typeFor(mime: verdict.mime)))
    case (_, nil):
      return result(nameTypes[0].type, mime: nameTypes[0].mime, source: .fileName, evidence: nameTypes.map(\.evidence), confidence: 0.4)
    case (_, let verdict?):
      let evidence = nameTypes.map(\.evidence)
      if !verdict.isUnknown {
        if let priority = verdict.priority, priority >= 80 {
          let contentType = typeFor(mime: verdict.mime)
          let disagreement =
            nameTypes.contains { agrees($0, verdict) } ? nil : TypeIdentification.Disagreement(nameType: nameTypes[0].type, contentType: contentType)
          return result(contentType, mime: verdict.mime, source: .content, evidence: [verdict.evidence] + evidence, confidence: 0.9, disagreement: disagreement)
        }
        if let database, let pick = nameTypes.first(where: { $0.mime.map { database.isSubclass($0, of: verdict.mime) } ?? false }) {
          return result(
            pick.type, mime: pick.mime, source: .fileNameAndContent, evidence: [pick.evidence, verdict.evidence] + evidence.filter { $0 != pick.evidence },
            confidence: 0.8)
        }
      }
      let first = nameTypes[0]
      let disagreement =
        verdict.isUnknown || nameTypes.contains(where: { agrees($0, verdict) })
        ? nil : TypeIdentification.Disagreement(nameType: first.type, contentType: typeFor(mime: verdict.mime))
      return result(first.type, mime: first.mime, source: .fileName, evidence: evidence + [verdict.evidence], confidence: 0.4, disagreement: disagreement)
    }
  }
}
