package narwhal.engine.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.TooLongFrameException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import narwhal.spi.TransportFailure;
import narwhal.spi.TransportFailure.Kind;
import org.junit.jupiter.api.Test;

/**
 * The classification behind each failure kind. The connect timeout is covered here rather than
 * over a real socket: no local trick makes a connect hang reliably.
 */
class TransportFailuresTest {

  @Test
  void connectTimeout_isConnectTimeout_thoughItIsAConnectException() {
    TransportFailure failure =
        TransportFailures.connectFailure("e:1", new ConnectTimeoutException("connection timed out"));

    assertThat(failure.kind()).isEqualTo(Kind.CONNECT_TIMEOUT);
    assertThat(failure.getCause()).isInstanceOf(ConnectTimeoutException.class);
  }

  @Test
  void refusedUnreachableOrUnknown_isConnectFailed() {
    assertThat(TransportFailures.connectFailure("e:1", new ConnectException("refused")).kind())
        .isEqualTo(Kind.CONNECT_FAILED);
    assertThat(TransportFailures.connectFailure("e:1", new NoRouteToHostException()).kind())
        .isEqualTo(Kind.CONNECT_FAILED);
    assertThat(TransportFailures.connectFailure("e:1", new UnknownHostException("x")).kind())
        .isEqualTo(Kind.CONNECT_FAILED);
  }

  @Test
  void channelErrors_areClassifiedByCause() {
    assertThat(TransportFailures.channelError("e:1", new IOException("Connection reset by peer")).kind())
        .isEqualTo(Kind.CONNECTION_CLOSED);
    assertThat(TransportFailures.channelError("e:1", new PrematureChannelClosureException()).kind())
        .isEqualTo(Kind.CONNECTION_CLOSED);
    assertThat(TransportFailures.channelError("e:1", new DecoderException("bad chunk")).kind())
        .isEqualTo(Kind.PROTOCOL_ERROR);
    assertThat(TransportFailures.channelError("e:1", new TooLongFrameException("header")).kind())
        .isEqualTo(Kind.PROTOCOL_ERROR);
  }

  @Test
  void theClientDetail_namesWhatHappened_withoutTheAddressOrTheClass() {
    String engine = "10.0.0.7:8001";
    assertThat(TransportFailures.connectFailure(engine,
        new ConnectException("Connection refused: /10.0.0.7:8001")).clientDetail())
        .isEqualTo("refused the connection");
    assertThat(TransportFailures.connectFailure(engine, new NoRouteToHostException("No route to host")).clientDetail())
        .isEqualTo("could not be reached: no route to its host");
    assertThat(TransportFailures.connectFailure(engine, new UnknownHostException("decode-0.internal")).clientDetail())
        .isEqualTo("could not be reached: its host name does not resolve");
    assertThat(TransportFailures.connectFailure(engine, new IOException("odd: /10.0.0.7:8001")).clientDetail())
        .isEqualTo("could not be connected to");
    assertThat(TransportFailures.channelError(engine, new DecoderException(new IllegalArgumentException("x")))
        .clientDetail()).isEqualTo("sent a malformed HTTP response");
    assertThat(TransportFailures.tooLarge(engine, "the response body", 1024).clientDetail())
        .isEqualTo("sent a response over the router's limit: the response body exceeds 1024 bytes");

    TransportFailure refused = TransportFailures.connectFailure(engine, new ConnectException("Connection refused"));
    assertThat(refused.getMessage()).as("operators keep the address").contains(engine);
  }
}
