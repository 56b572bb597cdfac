/// Decodes the frames of one animation on demand, composing each onto the canvas with
/// the format's disposal and blending rules.
///
/// A decoder keeps one canvas and the position it reached: asking for the next frame
/// costs one frame, asking out of order re-decodes from the nearest keyframe (a frame
/// that does not depend on earlier ones) at or before the one asked for. Calls must not
/// overlap: ``AnimatedImage`` checks a decoder out to one caller at a time. Every call
/// runs on the caller's thread and blocks; run it on ``DecodeQueue``.
public protocol AnimationDecoder: AnyObject, Sendable {
    /// What the file says about the animation; read without decoding pixels.
    var info: AnimationInfo { get }
    /// The frame the decoder would produce next without re-decoding earlier ones.
    var nextFrameIndex: Int { get }
    /// Frame `index`, composed and at ``AnimationInfo/frameSize``.
    ///
    /// - Parameters:
    ///   - index: 0 ..< ``AnimationInfo/frameCount``.
    ///   - storage: A buffer of ``AnimationInfo/frameSize`` whose bytes may be overwritten
    ///     and returned (a frame-buffer pool passes its spare buffers here); `nil` or a
    ///     buffer of another size makes a fresh one.
    /// - Throws: ``WebImageError/Code/badImageData`` when the frame's data is corrupt or
    ///   cut short (the frames before it stay available), or `index` is out of range.
    func frame(at index: Int, reusing storage: consuming PixelBuffer?) throws(WebImageError) -> ImageFrame
}
