package narwhal.bench.load;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The addresses of one benchmark setup: the simulated engines by role, the router and nginx
 * (its decode port, and its prefill port for {@link Arm#NGINX_BOTH}). The router and nginx may
 * be absent when their arm is not run.
 */
public record Targets(List<HttpTarget> prefill, List<HttpTarget> decode, @Nullable HttpTarget router,
    @Nullable HttpTarget nginx, @Nullable HttpTarget nginxPrefill) {

  public Targets {
    prefill = List.copyOf(prefill);
    decode = List.copyOf(decode);
    if (prefill.isEmpty() || decode.isEmpty()) {
      throw new IllegalArgumentException("need at least one prefill and one decode engine");
    }
  }

  /** Without nginx's prefill port. */
  public Targets(List<HttpTarget> prefill, List<HttpTarget> decode, @Nullable HttpTarget router,
      @Nullable HttpTarget nginx) {
    this(prefill, decode, router, nginx, null);
  }

  /** Where {@code arm} sends the streamed (decode) request. */
  public HttpTarget streamTarget(Arm arm, int roundRobin) {
    return switch (arm) {
      case DIRECT -> decode.get(Math.floorMod(roundRobin, decode.size()));
      case NARWHAL -> require(router, "router");
      case NGINX, NGINX_BOTH -> require(nginx, "nginx");
    };
  }

  /** Where {@code arm}'s generator sends the prefill leg (an arm that runs it itself). */
  public HttpTarget prefillTarget(Arm arm, int roundRobin) {
    return arm == Arm.NGINX_BOTH
        ? require(nginxPrefill, "nginx prefill port")
        : prefill.get(Math.floorMod(roundRobin, prefill.size()));
  }

  private static HttpTarget require(@Nullable HttpTarget t, String what) {
    if (t == null) {
      throw new IllegalStateException("no " + what + " in this setup");
    }
    return t;
  }
}
