package narwhal.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The one table from an error's HTTP status to its canonical (gRPC) code. */
class CanonicalCodeTest {

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "400, INVALID_ARGUMENT", "413, INVALID_ARGUMENT", "422, INVALID_ARGUMENT",
    "401, UNAUTHENTICATED", "403, PERMISSION_DENIED", "404, NOT_FOUND",
    "405, UNIMPLEMENTED", "501, UNIMPLEMENTED", "408, DEADLINE_EXCEEDED", "504, DEADLINE_EXCEEDED",
    "409, ABORTED", "429, RESOURCE_EXHAUSTED", "499, CANCELLED", "500, INTERNAL",
    "502, UNAVAILABLE", "503, UNAVAILABLE", "418, FAILED_PRECONDITION", "599, INTERNAL",
  })
  void httpStatus_mapsToItsCanonicalCode(int status, CanonicalCode code) {
    assertThat(CanonicalCode.forHttpStatus(status)).isEqualTo(code);
    assertThat(CanonicalCode.of(RouterError.of(status, "t", null, "m"))).isEqualTo(code);
  }

  @Test
  void aSuccessStatus_isNotAnError() {
    assertThatThrownBy(() -> CanonicalCode.forHttpStatus(200)).isInstanceOf(IllegalArgumentException.class);
  }
}
