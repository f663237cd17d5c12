// UIKit's additions to Foundation's IndexPath (`row`, `section`, `item`), which table and
// collection code reaches for when it walks a document's pages or items. Compatibility
// surface: see the "Porting from Apple's frameworks" article.
public import Foundation

extension IndexPath {
  /// An index path of a row in a section (UIKit's `init(row:section:)`).
  public init(row: Int, section: Int) { self.init(indexes: [section, row]) }

  /// An index path of an item in a section (UIKit's `init(item:section:)`).
  public init(item: Int, section: Int) { self.init(indexes: [section, item]) }

  /// The section: the first index (UIKit's `section`).
  public var section: Int {
    get { self[0] }
    set { self[0] = newValue }
  }

  /// The row in the section: the second index (UIKit's `row`).
  public var row: Int {
    get { self[1] }
    set { self[1] = newValue }
  }

  /// The item in the section: the second index (UIKit's `item`).
  public var item: Int {
    get { self[1] }
    set { self[1] = newValue }
  }
}
