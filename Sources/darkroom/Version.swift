import CDarkroomCodecs

let darkroomVersion = "0.1.0 (\(String(cString: dr_libjpeg_version())), \(String(cString: dr_libpng_version())))"
