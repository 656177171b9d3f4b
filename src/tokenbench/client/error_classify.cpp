#include "tokenbench/client/error_classify.h"

namespace tokenbench::client {

void classify_transport_error(CURLcode result, const char* curl_error, bool got_content,
                              core::RequestRecord& record) {
  using core::ErrorClass;
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
      record.error = ErrorClass::kTimeout;
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
  record.error_message = (curl_error != nullptr && curl_error[0] != '\0')
                             ? std::string(curl_error)
                             : std::string(curl_easy_strerror(result));
}

void classify_http_status(int status, const std::string& message, core::RequestRecord& record) {
  using core::ErrorClass;
  if (status == 429) {
    record.error = ErrorClass::kRateLimited;
  } else if (status >= 400 && status < 500) {
    record.error = ErrorClass::kHttp4xx;
  } else if (status >= 500 && status < 600) {
    record.error = ErrorClass::kHttp5xx;
  } else {
    record.error = ErrorClass::kMalformed;
  }
  record.error_message = "HTTP " + std::to_string(status) + (message.empty() ? "" : ": " + message);
}

}  // namespace tokenbench::client
