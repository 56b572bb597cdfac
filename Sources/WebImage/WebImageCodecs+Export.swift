// `import WebImage` gives users the codec layer's types (images, formats, coders) too.
@_exported import WebImageCodecs
