public import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import QuireDocuments
public import QuirePreviews
import QuireSystem
public import QuireTypes
import ServiceLifecycle
import Synchronization

/// `quire serve`: the document browser as a web page on the local machine.
///
/// Hummingbird (on SwiftNIO) serves HTTP/1.1 on 127.0.0.1 only, with deadlines and caps on
/// connections (see `ConnectionGuard`) so that idle or slow clients cannot starve it. The
/// address it prints
/// carries a random token; ``AccessControl`` turns it into a session cookie and checks every
/// request (host, session, fetch metadata, CSRF token on changes). Every file a request
/// names goes through ``ServedLocations``, which refuses anything outside the served folders.
///
/// The page lists, filters, sorts, searches and changes documents through the browser
/// module's `DocumentBrowser` (so every change is coordinated), shows previews made by
/// `PreviewGenerator` and thumbnails from the freedesktop thumbnail cache, and edits text
/// documents as ``QuireDocuments/PlainTextDocument``s (see ``EditingRoom``). What changes —
/// files added, changed or removed by anyone, an open document changed elsewhere, progress
/// of long work — reaches the page as server-sent events on `/api/events`.
public struct DocumentServer: Sendable {
  /// What to serve and where.
  public struct Configuration: Sendable {
    /// The folders to show.
    public var folders: [URL]
    /// The port; 0 lets the system choose a free one.
    public var port: Int
    /// The access token; `nil` makes a random one (tests may fix it).
    public var token: String?
    /// Where per-user state goes (recents, recovery, versions); `nil` for `$XDG_STATE_HOME/quire`.
    public var stateFolder: URL?
    /// The templates folder for "new from template".
    public var templatesFolder: URL?
    /// The worker processes the search index reads PDFs' text through
    /// (``DocumentBrowser/Configuration/pdfTextWorkers``); nil to read them in the server.
    public var pdfTextWorkers: PDFTextWorkers?

    public init(
      folders: [URL], port: Int = 0, token: String? = nil, stateFolder: URL? = nil, templatesFolder: URL? = nil, pdfTextWorkers: PDFTextWorkers? = nil
    ) {
      self.folders = folders
      self.port = port
      self.token = token
      self.stateFolder = stateFolder
      self.templatesFolder = templatesFolder
      self.pdfTextWorkers = pdfTextWorkers
    }
  }

  /// The configuration.
  public let configuration: Configuration
  /// The served folders.
  public let locations: ServedLocations
  /// Access control (the token and sessions).
  public let access: AccessControl
  /// The events the page listens to.
  public let events = EventHub()

  /// Makes a server; nothing listens until ``run(onReady:)``.
  ///
  /// - Throws: ``QuireError`` naming a folder that is missing or not a folder, or a port
  ///   outside 0…65535.
  public init(configuration: Configuration) throws(QuireError) {
    guard (0...65535).contains(configuration.port) else {
      throw QuireError(.invalidArgument, "Port \(configuration.port) is not a TCP port; give 1…65535, or 0 for any free one.")
    }
    self.configuration = configuration
    self.locations = try ServedLocations(folders: configuration.folders)
    self.access = AccessControl(token: configuration.token)
  }

  /// Listens on 127.0.0.1 until the process gets SIGINT or SIGTERM (or the task is
  /// cancelled), then closes the page's event streams and the open documents.
  ///
  /// - Parameter onReady: Called once with the address to open (it carries the token).
  /// - Throws: ``QuireError`` when the port cannot be bound.
  public func run(onReady: @escaping @Sendable (String) -> Void) async throws {
    let site = try await Site.make(server: self)
    var logger = Logger(label: "quire-serve")
    logger.logLevel = .error
    let access = self.access
    // Connections are capped below the descriptor limit, raised first to its hard value.
    let connections = ConnectionGuard(limits: .init(descriptorLimit: SystemCalls.raiseDescriptorLimit() ?? 1024))
    let app = Application(
      responder: CallbackResponder<BasicRequestContext> { request, context in
        await site.respond(to: request, context: context)
      },
      server: .http1(configuration: HTTP1Channel.Configuration(additionalChannelHandlers: [connections.makeHandler()])),
      configuration: ApplicationConfiguration(
        address: .hostname("127.0.0.1", port: configuration.port), serverName: nil, backlog: ConnectionGuard.listenBacklog,
        availableConnectionsDelegate: ConnectionGuard.AcceptGate(guarded: connections)),
      onServerRunning: { channel in
        access.port = channel.localAddress?.port ?? 0
        onReady(access.address)
      },
      logger: logger)
    // Services stop in reverse order: the event streams end first, so the server's graceful
    // shutdown does not wait for pages that keep listening.
    let group = ServiceGroup(
      configuration: .init(
        services: [app, ClosingService(site: site)], gracefulShutdownSignals: [.sigterm, .sigint], cancellationSignals: [], logger: logger))
    do {
      try await group.run()
    } catch let error as IOError {
      throw QuireError(
        .systemCallFailed, "Cannot listen on 127.0.0.1:\(configuration.port): \(error.description). Choose another --port, or 0 for any free one.",
        cause: error)
    }
  }
}

/// Ends the page's event streams, the site's background work and its open documents when
/// the server stops.
private struct ClosingService: Service {
  let site: Site

  func run() async throws {
    try? await gracefulShutdown()
    await site.close()
  }
}
