import Foundation
import QuireTypes

/// Loading what a desktop selection offers, for the X11 and the Wayland owner alike: each
/// offered target's representation is loaded through the providers' completion handlers only
/// when a program asks for it, never on the connection's thread (which keeps serving) and
/// never waiting on the cooperative pool, which the program may be blocking while a client
/// reads from it.
enum SelectionLoading {
  /// What a load gives: bytes, or a file that readers stream
  /// through the provider's file coordinator (never held whole in memory).
  enum Delivery: Sendable {
    case data(Data)
    case file(URL, provider: ItemProvider, typeIdentifier: String)
  }

  /// Loads the bytes of `source` into memory (X11 answers are properties, so whole).
  static func loadData(
    _ source: SelectionTargets.Source, from providers: [ItemProvider], done: @escaping @Sendable (Result<Data, any Error>) -> Void
  ) {
    start(source, from: providers) { result in
      done(
        Result {
          switch try result.get() {
          case .data(let data): return data
          case .file(let url, let provider, let identifier): return try provider.readData(url, typeIdentifier: identifier)
          }
        })
    }
  }

  /// Loads `source`: a file representation comes back as its file, for streaming; converted
  /// text and URI lists as bytes. `done` is called once, on some background thread; a file
  /// it gets is valid only while `done` runs.
  static func start(
    _ source: SelectionTargets.Source, from providers: [ItemProvider], done: @escaping @Sendable (Result<Delivery, any Error>) -> Void
  ) {
    switch source {
    case .representation(let identifier):
      guard let first = providers.first else { return done(.failure(noRepresentation(identifier))) }
      startExact(identifier, from: first, done: done)
    case .latin1(let identifier):
      guard let first = providers.first else { return done(.failure(noRepresentation(identifier))) }
      loadExact(identifier, from: first) { result in done(result.map { .data(SelectionTargets.latin1($0)) }) }
    case .uriList:
      let holders = providers.filter { provider in provider.representations.contains { $0.typeIdentifier == UTType.fileURL.identifier } }
      loadURIs(holders[...], list: "") { result in done(result.map { .data($0) }) }
    case .meta:
      done(.failure(QuireError(.unsupportedType, "The selection's owner answers this target itself.")))
    }
  }

  private static func noRepresentation(_ identifier: String) -> QuireError {
    QuireError(.unsupportedType, "The copied item no longer has a \(identifier) representation.")
  }

  /// Each provider's file URL in turn, one a line (CR LF), as `text/uri-list` wants.
  private static func loadURIs(_ providers: ArraySlice<ItemProvider>, list: String, done: @escaping @Sendable (Result<Data, any Error>) -> Void) {
    guard let first = providers.first else { return done(.success(Data(list.utf8))) }
    loadExact(UTType.fileURL.identifier, from: first) { result in
      switch result {
      case .failure(let error): done(.failure(error))
      case .success(let data):
        let url = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        loadURIs(providers.dropFirst(), list: list + url + "\r\n", done: done)
      }
    }
  }

  /// Loads exactly the representation `identifier` (never one that merely conforms to it) into memory.
  private static func loadExact(_ identifier: String, from provider: ItemProvider, done: @escaping @Sendable (Result<Data, any Error>) -> Void) {
    startExact(identifier, from: provider) { result in
      done(
        Result {
          switch try result.get() {
          case .data(let data): return data
          case .file(let url, _, _): return try provider.readData(url, typeIdentifier: identifier)
          }
        })
    }
  }

  /// Starts exactly the representation `identifier` of `provider`.
  private static func startExact(
    _ identifier: String, from provider: ItemProvider, done: @escaping @Sendable (Result<Delivery, any Error>) -> Void
  ) {
    guard let representation = provider.representations.first(where: { $0.typeIdentifier == identifier && $0.visibility == .all }) else {
      return done(.failure(noRepresentation(identifier)))
    }
    provider.start(representation, progress: Progress(totalUnitCount: 1)) { result in
      switch result {
      case .failure(let error): done(.failure(error))
      case .success(.data(let data)): done(.success(.data(data)))
      case .success(.file(let url)): done(.success(.file(url, provider: provider, typeIdentifier: identifier)))
      }
    }
  }
}
