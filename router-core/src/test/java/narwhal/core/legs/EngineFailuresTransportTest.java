package narwhal.core.legs;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ConnectException;
import narwhal.api.FailureClass;
import narwhal.spi.Phase;
import narwhal.spi.TransportFailure;
import narwhal.spi.TransportFailure.Kind;
import org.junit.jupiter.api.Test;

/**
 * A transport failure becomes two texts: the client's, naming the engine by iid with the
 * transport's client detail, and the operator's, which adds the transport's own words (address,
 * exception) after it.
 */
class EngineFailuresTransportTest {

  private static final String OPERATOR = "cannot connect to 10.0.0.7:8001: io.netty.channel."
      + "AbstractChannel$AnnotatedConnectException: Connection refused: /10.0.0.7:8001";

  @Test
  void theClientReadsTheIidAndTheClause_theOperatorTheAddressToo() {
    TransportFailure refused = new TransportFailure(Kind.CONNECT_FAILED, OPERATOR, "refused the connection",
        new ConnectException("Connection refused"));

    EngineFailure f = EngineFailures.fromTransport(Phase.DECODE, "d2", refused, 0);

    assertThat(f.clientMessage()).isEqualTo("decode engine d2 refused the connection");
    assertThat(f.toRouterError().message()).isEqualTo(f.clientMessage());
    assertThat(f.toRouterError().status()).isEqualTo(502);
    assertThat(f.operatorDetail()).isEqualTo(OPERATOR);
    assertThat(f.getMessage()).isEqualTo("decode engine d2 refused the connection (" + OPERATOR + ")");
    assertThat(f.failureClass()).isEqualTo(FailureClass.CONNECTION);
  }

  @Test
  void withoutAClientDetail_eachKindHasItsOwnWords_andNeverTheTransportsMessage() {
    assertThat(EngineFailures.fromTransport(Phase.PREFILL, "p0",
        new TransportFailure(Kind.CONNECT_FAILED, OPERATOR), 0).clientMessage())
        .isEqualTo("prefill engine p0 could not be connected to");
    assertThat(EngineFailures.fromTransport(Phase.PREFILL, "p0",
        new TransportFailure(Kind.CONNECT_TIMEOUT, "connect to 10.0.0.7:8001 timed out"), 0).clientMessage())
        .isEqualTo("prefill engine p0 did not accept a connection in time");
    assertThat(EngineFailures.fromTransport(Phase.DECODE, "d0",
        new TransportFailure(Kind.CONNECTION_CLOSED, "connection to 10.0.0.7:8001 failed: java.io.IOException"), 3)
        .clientMessage())
        .isEqualTo("decode engine d0 closed the connection before the response was complete (after 3 tokens)");
    assertThat(EngineFailures.fromTransport(Phase.DECODE, "d0",
        new TransportFailure(Kind.PROTOCOL_ERROR, "invalid HTTP response from 10.0.0.7:8001: x"), 0).clientMessage())
        .isEqualTo("decode engine d0 sent invalid HTTP");
  }

  @Test
  void aFailureWithoutDetail_hasOneText() {
    EngineFailure f = EngineFailures.fromStatus(Phase.PREFILL, "p1", 500, "boom");

    assertThat(f.getMessage()).isEqualTo(f.clientMessage()).isEqualTo("prefill engine p1 answered HTTP 500: boom");
    assertThat(f.operatorDetail()).isNull();
  }
}
