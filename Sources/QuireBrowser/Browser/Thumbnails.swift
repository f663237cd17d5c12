import Foundation
import QuirePreviews
import QuireTypes

/// On-demand thumbnails for browser items, through the freedesktop cache.
struct Thumbnails {
  let cache: ThumbnailCache
  let registry: TypeRegistry

  func cachedThumbnail(for item: BrowserItem, size: Int) -> URL? {
    guard let source = try? ThumbnailCache.source(for: item.url) else { return nil }
    if case .fresh(let url) = cache.entry(for: source, flavor: ThumbnailCache.Flavor(forPixels: size)) { return url }
    return nil
  }

  func thumbnail(for item: BrowserItem, size: Int) throws -> URL {
    let source = try ThumbnailCache.source(for: item.url)
    let flavor = ThumbnailCache.Flavor(forPixels: size)
    switch cache.entry(for: source, flavor: flavor) {
    case .fresh(let url): return url
    case .failed:
      throw QuireError(
        .invalidContent, "No thumbnail can be made of \(QuireError.name(item.url)): an earlier attempt failed and the file has not changed since.",
        url: item.url)
    case .missing: break
    }
    let generator = ThumbnailGenerator(types: registry)
    let request = ThumbnailRequest(fileURL: item.url, contentType: item.contentType, maximumSize: flavor.pixels)
    do {
      let bitmap = try generator.generateBestRepresentation(for: request)
      return try cache.store(bitmap, for: source, flavor: flavor, mimeType: item.mimeType)
    } catch {
      _ = try? cache.recordFailure(for: source, mimeType: item.mimeType)
      throw error
    }
  }
}
