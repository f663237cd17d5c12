import Foundation
import QuireTypes
import Synchronization

/// Another program's selection, as item providers.
struct SelectionReader {
  let connection: DisplayConnection
  let selection: DisplaySelection

  /// How long the owner may take to list its targets.
  static let targetsTimeout: Duration = .seconds(5)

  /// The owner's `TARGETS`, as names.
  func targets() throws -> [String] {
    // Waited for on this thread with a semaphore, never through a task: callers may be on
    // the cooperative pool, whose few threads the answer must not need.
    let result = Mutex<Result<(type: String, data: Data), any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    connection.startRead(selection, target: "TARGETS", into: nil, stallTimeout: Self.targetsTimeout) { outcome in
      result.withLock { $0 = outcome }
      done.signal()
    }
    guard done.wait(timeout: .now() + Self.targetsTimeout.timeInterval + 5) == .success, let outcome = result.withLock({ $0 }) else {
      throw QuireError(.timedOut, "The program holding the \(selection.rawValue) selection did not list its types within \(Self.targetsTimeout).")
    }
    let (type, data) = try outcome.get()
    guard type == "ATOM" || type == "TARGETS" else {
      throw QuireError(
        .invalidContent,
        "The program holding the \(selection.rawValue) selection answered TARGETS with \(type.isEmpty ? "nothing" : type), not a list of atoms.")
    }
    let atoms = data.withUnsafeBytes { Array($0.bindMemory(to: UInt32.self)) }
    return try connection.perform { loop in atoms.compactMap { loop.name(of: $0) } }
  }

  /// One provider whose representations are the owner's targets, each read when loaded;
  /// none when it offers nothing Quire can name.
  func itemProviders() throws -> [ItemProvider] {
    let readable = SelectionTargets.readable(fromTargets: try targets())
    guard !readable.isEmpty else { return [] }
    let provider = ItemProvider(suggestedName: nil)
    let connection = connection
    let selection = selection
    for entry in readable {
      let timeout = provider.loadTimeout
      if entry.isLatin1 || entry.typeIdentifier == UTType.fileURL.identifier {
        // Small text that needs converting: read into memory.
        provider.registerDataRepresentation(forTypeIdentifier: entry.typeIdentifier) {
          let (_, data) = try await connection.read(selection, target: entry.target, into: nil, stallTimeout: timeout)
          return entry.isLatin1 ? SelectionTargets.utf8(fromLatin1: data) : SelectionTargets.firstURI(ofURIList: data)
        }
        continue
      }
      // Anything else streams into a file, so a large image never sits in memory twice.
      provider.registerFileRepresentation(forTypeIdentifier: entry.typeIdentifier) { completion in
        let progress = Progress(totalUnitCount: 1)
        Task {
          do {
            let scratch = try ScratchFolder()
            defer { scratch.remove() }
            let target = scratch.url.appendingPathComponent(ScratchFolder.fileName(suggestedName: nil, type: UTType(entry.typeIdentifier)))
            _ = try await connection.read(selection, target: entry.target, into: target, stallTimeout: timeout)
            completion(target, nil)
          } catch {
            completion(nil, error)
          }
        }
        return progress
      }
    }
    return [provider]
  }
}
