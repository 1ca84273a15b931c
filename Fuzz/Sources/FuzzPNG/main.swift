import FuzzImaging

/// Inputs that do not start with the PNG signature are refused (-1: not added to the
/// corpus), so this corpus stays PNG; FuzzJPEG does the same for JPEG.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    ImageFuzz.run(UnsafeRawBufferPointer(start: start, count: count), expecting: .png)
}
