import Foundation

/// A coder that can open an animation and decode its frames one at a time.
///
/// ``ImageCoder/decode(_:options:)`` turns every frame into pixels at once; an animated
/// coder instead reads the animation's structure (frame count, loop count, durations,
/// canvas size) without decoding pixels, and hands back an ``AnimationDecoder`` that
/// composes one frame when asked. ``AnimatedImage`` and ``AnimatedImagePlayer`` are built
/// on it, so memory per animation is one canvas plus the frames a player buffers.
///
/// GIF (``GIFCoder``), APNG (``PNGCoder``), animated WebP (``WebPCoder``) and AVIF image
/// sequences (``AVIFCoder``) implement it.
/// Stateless like every coder: call it from any thread.
public protocol AnimatedImageCoder: ImageCoder {
    /// Reads the animation in `data` and returns a decoder for its frames, or `nil` when
    /// `data` is a still image (one frame). Reads headers and block structure only; no
    /// pixel is decoded. Runs on the caller's thread.
    ///
    /// - Throws: ``WebImageError/Code/badImageData`` for unreadable data,
    ///   ``WebImageError/Code/imageTooLarge`` when canvas × frames exceeds
    ///   ``ImageDecodeOptions/maxPixelCount`` (checked before any pixel is allocated).
    func makeAnimationDecoder(_ data: Data, options: ImageDecodeOptions) throws(WebImageError) -> (any AnimationDecoder)?
}
