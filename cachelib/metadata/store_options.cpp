#include "cachelib/metadata/store_options.h"

#include <cstdio>
#include <utility>

#include "cachelib/metadata/format.h"

namespace tiercache {
namespace {

// Keeps num * den and used * den far from overflow (the journal has at most 16,384 blocks).
constexpr uint64_t kMaxDenominator = 65536;

constexpr bool Ordered(const StoreOptions& o) {
  return o.one_step_above.at_most(o.four_steps_above) &&
         o.four_steps_above.num < o.four_steps_above.den;
}

}  // namespace

// The default runs steps only for regions larger than four steps of the largest size.
static_assert(StoreOptions{}.steps_above_pages == 4 * format::sb::kMaxRoundPages);
static_assert(Ordered(StoreOptions{}));

Status StoreOptions::validate() const {
  const std::pair<const char*, const JournalFill*> fills[] = {
      {"one_step_above", &one_step_above}, {"four_steps_above", &four_steps_above}};
  for (const auto& [name, f] : fills) {
    if (f->den == 0 || f->den > kMaxDenominator || f->num > f->den) {
      return Status::InvalidArgument(std::string(name) + " " + f->ToString() +
                                     " must be a fraction of the journal (denominator 1 to " +
                                     std::to_string(kMaxDenominator) + ")");
    }
  }
  if (!Ordered(*this)) {
    return Status::InvalidArgument("one_step_above " + one_step_above.ToString() +
                                   " and four_steps_above " + four_steps_above.ToString() +
                                   " must satisfy one_step_above <= four_steps_above < 1");
  }
  return Status::Ok();
}

Status ParseJournalSteps(std::string_view text, StoreOptions& into) {
  unsigned long long a, b, c, d;
  char end;
  const std::string copy(text);
  if (std::sscanf(copy.c_str(), "%llu/%llu,%llu/%llu%c", &a, &b, &c, &d, &end) != 4) {
    return Status::InvalidArgument("'" + copy + "' is not ONE/N,FOUR/N (e.g. 13/16,7/8)");
  }
  StoreOptions o = into;
  o.one_step_above = {a, b};
  o.four_steps_above = {c, d};
  TC_RETURN_IF_ERROR(o.validate());
  into = o;
  return Status::Ok();
}

}  // namespace tiercache
