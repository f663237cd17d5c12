// PDFKit's find: the synchronous `findString(_:withOptions:)` and the asynchronous
// `beginFindString(_:withOptions:)`, with the delegate callbacks and notifications PDFKit
// documents. Compatibility surface: see the "Porting from Apple's frameworks" article.
public import Foundation
import QuireDocuments

/// PDFKit's `PDFDocumentDelegate`: told of a document's finds as they run.
///
/// Every method is optional, as in PDFKit (where they are Objective-C `optional`): the
/// protocol's extension gives each one an empty default, so a conformer implements only what
/// it needs. The document keeps its ``PDFDocument/delegate`` weakly.
///
/// The methods are called where the find runs: for ``PDFDocument/beginFindString(_:withOptions:)``
/// on the main actor (PDFKit calls them on the main thread), for
/// ``PDFDocument/findString(_:withOptions:)`` on the caller's. Each `…Find` method receives
/// the notification that is also posted on `NotificationCenter.default`.
public protocol PDFDocumentDelegate: AnyObject {
  /// A find began (`.PDFDocumentDidBeginFind`).
  func documentDidBeginDocumentFind(_ notification: Notification)
  /// A find ended, finished or cancelled (`.PDFDocumentDidEndFind`).
  func documentDidEndDocumentFind(_ notification: Notification)
  /// A find began a page (`.PDFDocumentDidBeginPageFind`).
  func documentDidBeginPageFind(_ notification: Notification)
  /// A find finished a page (`.PDFDocumentDidEndPageFind`).
  func documentDidEndPageFind(_ notification: Notification)
  /// A find found a match (`.PDFDocumentDidFindMatch`).
  func documentDidFindMatch(_ notification: Notification)
  /// Called for every match found during a find, with the match.
  func didMatchString(_ instance: PDFSelection)
}

extension PDFDocumentDelegate {
  /// Does nothing (the method is optional).
  public func documentDidBeginDocumentFind(_ notification: Notification) {}
  /// Does nothing (the method is optional).
  public func documentDidEndDocumentFind(_ notification: Notification) {}
  /// Does nothing (the method is optional).
  public func documentDidBeginPageFind(_ notification: Notification) {}
  /// Does nothing (the method is optional).
  public func documentDidEndPageFind(_ notification: Notification) {}
  /// Does nothing (the method is optional).
  public func documentDidFindMatch(_ notification: Notification) {}
  /// Does nothing (the method is optional).
  public func didMatchString(_ instance: PDFSelection) {}
}

extension Notification.Name {
  // PDFKit's names, as Apple spells them (capitalised).
  // swift-format-ignore: AlwaysUseLowerCamelCase
  /// PDFKit's: a find began. The object is the ``PDFDocument``.
  public static let PDFDocumentDidBeginFind = Notification.Name("PDFDocumentDidBeginFindNotification")
  // swift-format-ignore: AlwaysUseLowerCamelCase
  /// PDFKit's: a find ended (all pages searched, or cancelled). The object is the ``PDFDocument``.
  public static let PDFDocumentDidEndFind = Notification.Name("PDFDocumentDidEndFindNotification")
  // swift-format-ignore: AlwaysUseLowerCamelCase
  /// PDFKit's: a find began a page. The object is the ``PDFDocument``; the user info holds
  /// the page's index as an `NSNumber` under ``PDFDocumentPageIndexKey``.
  public static let PDFDocumentDidBeginPageFind = Notification.Name("PDFDocumentDidBeginPageFindNotification")
  // swift-format-ignore: AlwaysUseLowerCamelCase
  /// PDFKit's: a find finished a page. The object is the ``PDFDocument``; the user info holds
  /// the page's index as an `NSNumber` under ``PDFDocumentPageIndexKey``.
  public static let PDFDocumentDidEndPageFind = Notification.Name("PDFDocumentDidEndPageFindNotification")
  // swift-format-ignore: AlwaysUseLowerCamelCase
  /// PDFKit's: a find found a match. The object is the ``PDFDocument``; the user info holds
  /// the match, a ``PDFSelection``, under ``PDFDocumentFoundSelectionKey``.
  public static let PDFDocumentDidFindMatch = Notification.Name("PDFDocumentDidFindMatchNotification")
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// PDFKit's user-info key of `.PDFDocumentDidFindMatch`: the
/// ``PDFSelection`` found.
public let PDFDocumentFoundSelectionKey = "PDFDocumentFoundSelection"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// PDFKit's user-info key of the page notifications: the page's index, an `NSNumber`.
public let PDFDocumentPageIndexKey = "PDFDocumentPageIndex"

extension PDFSelection {
  /// The selection's text as an attributed string (PDFKit's `attributedString`), nil when the
  /// selection has no text. Quire's carries the text without font or colour attributes: those
  /// are UIKit/AppKit objects (`UIFont`, `UIColor`), which Linux does not have.
  public var attributedString: NSAttributedString? {
    string.map { NSAttributedString(string: $0) }
  }
}

extension PDFDocument {
  /// Every match of `string`, one ``PDFSelection`` per match, page by page (PDFKit's form).
  ///
  /// As PDFKit documents, the find is announced: `.PDFDocumentDidBeginFind`,
  /// for each page `.PDFDocumentDidBeginPageFind`, one
  /// `.PDFDocumentDidFindMatch` per match and
  /// `.PDFDocumentDidEndPageFind`, then
  /// `.PDFDocumentDidEndFind`, each also passed to the
  /// ``delegate``. `.caseInsensitive` in `options` ignores case; other options are ignored. A
  /// page that cannot be read gives no match. `findString("word")` is this form, as in PDFKit.
  /// Quire's ``findString(_:caseSensitive:)`` gives one
  /// selection per page instead and says why a page cannot be read.
  public func findString(_ string: String, withOptions options: NSString.CompareOptions = []) -> [PDFSelection] {
    let strings = [string]
    announceFind(.PDFDocumentDidBeginFind)
    defer { announceFind(.PDFDocumentDidEndFind) }
    return pages.indices.flatMap { findStep(strings, onPage: $0, options: options) }
  }

  /// Starts finding `string` in the background and returns at once (PDFKit's asynchronous
  /// find); the matches arrive through the ``delegate`` (``PDFDocumentDelegate/didMatchString(_:)``)
  /// and the notifications listed at ``findString(_:withOptions:)``, on the main actor.
  ///
  /// The find searches one page per main-actor turn, so the caller stays responsive and
  /// ``cancelFindString()`` stops it between pages. A find already under way is cancelled first.
  /// ``isFinding`` is true until the find has ended; the end is always announced, also after a
  /// cancel, so every begin has its end.
  ///
  /// - Parameters:
  ///   - string: The text to find; an empty string finds nothing.
  ///   - options: `.caseInsensitive` ignores case; other options are ignored.
  @preconcurrency @MainActor
  public func beginFindString(_ string: String, withOptions options: NSString.CompareOptions = []) {
    beginFindStrings([string], withOptions: options)
  }

  /// Starts finding each of `strings` in the background (PDFKit's `beginFindStrings`): page by
  /// page, every string on the page before the next page; otherwise as
  /// ``beginFindString(_:withOptions:)``.
  @preconcurrency @MainActor
  public func beginFindStrings(_ strings: [String], withOptions options: NSString.CompareOptions = []) {
    cancelFindString()
    findGeneration += 1
    let generation = findGeneration
    announceFind(.PDFDocumentDidBeginFind)
    findTask = Task { @MainActor in
      var index = 0
      while !Task.isCancelled && index < self.pageCount {
        _ = self.findStep(strings, onPage: index, options: options)
        index += 1
        await Task.yield()
      }
      // A cancel announced the end already, and a newer find now owns the state.
      guard !Task.isCancelled, generation == self.findGeneration else { return }
      self.findTask = nil
      self.announceFind(.PDFDocumentDidEndFind)
    }
  }

  /// Stops the find started by ``beginFindString(_:withOptions:)`` (between two pages) and
  /// announces its end; does nothing when no find is under way.
  @preconcurrency @MainActor
  public func cancelFindString() {
    guard let task = findTask else { return }
    task.cancel()
    findTask = nil
    announceFind(.PDFDocumentDidEndFind)
  }

  /// Whether a find started by ``beginFindString(_:withOptions:)`` is under way.
  public var isFinding: Bool { findTask != nil }

  /// Searches page `index` for each of `strings`, announcing the page and each match; returns
  /// the matches, one selection per match.
  private func findStep(_ strings: [String], onPage index: Int, options: NSString.CompareOptions) -> [PDFSelection] {
    let page: [AnyHashable: Any] = [PDFDocumentPageIndexKey: NSNumber(value: index)]
    announceFind(.PDFDocumentDidBeginPageFind, userInfo: page)
    var found: [PDFSelection] = []
    for string in strings {
      let rects = (try? matches(of: string, onPage: index, caseSensitive: !options.contains(.caseInsensitive))) ?? []
      for rect in rects {
        let selection = PDFSelection(pageIndex: index, string: string, bounds: [rect], document: self)
        found.append(selection)
        announceFind(.PDFDocumentDidFindMatch, userInfo: [PDFDocumentFoundSelectionKey: selection])
        delegate?.didMatchString(selection)
      }
    }
    announceFind(.PDFDocumentDidEndPageFind, userInfo: page)
    return found
  }

  /// Posts `name` (object: the document) and passes it to the delegate's method for it.
  private func announceFind(_ name: Notification.Name, userInfo: [AnyHashable: Any]? = nil) {
    let notification = Notification(name: name, object: self, userInfo: userInfo)
    NotificationCenter.default.post(notification)
    guard let delegate else { return }
    switch name {
    case .PDFDocumentDidBeginFind: delegate.documentDidBeginDocumentFind(notification)
    case .PDFDocumentDidEndFind: delegate.documentDidEndDocumentFind(notification)
    case .PDFDocumentDidBeginPageFind: delegate.documentDidBeginPageFind(notification)
    case .PDFDocumentDidEndPageFind: delegate.documentDidEndPageFind(notification)
    case .PDFDocumentDidFindMatch: delegate.documentDidFindMatch(notification)
    default: break
    }
  }
}
