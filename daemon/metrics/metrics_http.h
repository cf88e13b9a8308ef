// The HTTP side of tiercached --metrics: the listen address and the answer to one HTTP/1.x
// request head. Just enough HTTP for Prometheus and curl: GET /metrics (a query string is
// ignored) gets 200 with the exposition text, another path 404, another method 405, a head
// that does not parse 400; every response closes the connection. Stateless; thread-safe.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "cachelib/common/status.h"

namespace tiercache {

// "PORT" -> "127.0.0.1:PORT" (localhost unless asked otherwise); "HOST:PORT" and "[V6]:PORT"
// unchanged. InvalidArgument naming --metrics for an empty value or a port that is not 1-65535
// (0 is allowed: any free port, for tests).
Result<std::string> MetricsListenAddress(const std::string& value);

// True once `received` holds a whole request head (ends with an empty line).
bool HttpHeadComplete(std::string_view received);

// The whole response (status line, headers, body) to the request head `head`; `render` gives
// the exposition text and runs only for GET /metrics.
std::string MetricsHttpResponse(std::string_view head, const std::function<std::string()>& render);

}  // namespace tiercache
