#include "tokenbench/client/error_classify.h"

namespace tokenbench::client {

void classify_transport_error(CURLcode result, const char* curl_error, bool got_content,
                              bool got_headers, core::RequestRecord& record) {
  using core::ErrorClass;
  const std::string message = (curl_error != nullptr && curl_error[0] != '\0')
                                  ? std::string(curl_error)
                                  : std::string(curl_easy_strerror(result));
  record.error_message = message;
  switch (result) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
      record.error = ErrorClass::kConnect;
      break;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
      record.error = ErrorClass::kTls;
      break;
    case CURLE_OPERATION_TIMEDOUT:
      // libcurl says "Connection timed out after N ms" / "Failed to connect ..." when
      // CURLOPT_CONNECTTIMEOUT expired, "Operation timed out ..." for the total timeout.
      record.error = message.rfind("Connection timed out", 0) == 0 ||
                             message.rfind("Failed to connect", 0) == 0 ||
                             message.rfind("Resolving timed out", 0) == 0
                         ? ErrorClass::kConnectTimeout
                         : ErrorClass::kTimeout;
      break;
    case CURLE_OUT_OF_MEMORY:
      if (!got_headers) {
        // libcurl refuses a response header line over 100 KB with this code.
        record.error = ErrorClass::kProtocol;
        record.error_message = "the response headers are too large (libcurl: " + message +
                               "; it refuses a header line over 100 KB): a broken server or proxy";
        return;
      }
      record.error = got_content ? ErrorClass::kStreamCut : ErrorClass::kConnect;
      break;
    case CURLE_PARTIAL_FILE:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_HTTP2_STREAM:
      record.error = ErrorClass::kStreamCut;
      break;
    case CURLE_SEND_ERROR:
      record.error = got_content ? ErrorClass::kStreamCut : ErrorClass::kConnect;
      break;
    case CURLE_WEIRD_SERVER_REPLY:
    case CURLE_BAD_CONTENT_ENCODING:
      record.error = ErrorClass::kMalformed;
      break;
    default:
      record.error = got_content ? ErrorClass::kStreamCut : ErrorClass::kConnect;
      break;
  }
}

void classify_http_status(int status, const std::string& message, core::RequestRecord& record) {
  using core::ErrorClass;
  if (status == 429) {
    record.error = ErrorClass::kRateLimited;
  } else if (status >= 400 && status < 500) {
    record.error = ErrorClass::kHttp4xx;
  } else if (status >= 500 && status < 600) {
    record.error = ErrorClass::kHttp5xx;
  } else if (status >= 300 && status < 400) {
    record.error = ErrorClass::kRedirect;
  } else {
    record.error = ErrorClass::kMalformed;
  }
  record.error_message = "HTTP " + std::to_string(status) + (message.empty() ? "" : ": " + message);
}

}  // namespace tokenbench::client
