#pragma once

// Checks of HTTP request header fields that the simulator's sessions make before routing
// (internal to sim/). Pure and socket-free; any thread.

#include <boost/beast/http/field.hpp>
#include <boost/beast/http/message.hpp>
#include <initializer_list>
#include <string>
#include <string_view>

namespace tokenbench::sim {

/// The first coding named in the request's `field` (a comma-separated list, possibly over several
/// header lines, parameters ignored) that is not one of `allowed` (case-insensitive); empty when
/// every coding is allowed.
std::string unsupported_coding(const boost::beast::http::request_header<>& request,
                               boost::beast::http::field field,
                               std::initializer_list<std::string_view> allowed);

/// A client's X-Request-Id that may name a reply: 1 to 128 letters, digits and ".:_-".
bool usable_request_id(std::string_view id);

}  // namespace tokenbench::sim
