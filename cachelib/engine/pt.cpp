// Pass-through: everything goes to the core. Reads take only dirty sectors from the SSD (see
// read_path.cpp); writes behave exactly like write-around, which already bypasses the cache while
// keeping dirty data correct.
#include "cachelib/engine/io_paths.h"

namespace tiercache {

void WriteSegmentPt(Request& req, const Segment& seg) { WriteSegmentWa(req, seg); }

}  // namespace tiercache
