import FuzzImaging

/// Inputs that do not start with the JPEG SOI (FF D8) are refused (-1: not added to the
/// corpus), so this corpus stays JPEG; FuzzPNG does the same for PNG.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    ImageFuzz.run(UnsafeRawBufferPointer(start: start, count: count), expecting: .jpeg)
}
