// `import WebImageCompat` is all SDWebImage-style code needs: the core (and the codec layer
// it re-exports) comes with it, the way `import SDWebImage` brings everything.
@_exported import WebImage
