package narwhal.bench.load;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The addresses of one benchmark setup: the simulated engines by role, the router and nginx
 * (its decode port, and its prefill port for {@link Arm#NGINX_BOTH}). The router and nginx may
 * be absent when their arm is not run.
 */
public record Targets(List<HttpTarget> prefill, List<HttpTarget> decode, @Nullable HttpTarget router,
    @Nullable HttpTarget nginx, @Nullable HttpTarget nginxPrefill, List<HttpTarget> routers) {

  public Targets {
    prefill = List.copyOf(prefill);
    decode = List.copyOf(decode);
    routers = List.copyOf(routers);
    if (prefill.isEmpty() || decode.isEmpty()) {
      throw new IllegalArgumentException("need at least one prefill and one decode engine");
    }
  }

  /** Without nginx's prefill port. */
  public Targets(List<HttpTarget> prefill, List<HttpTarget> decode, @Nullable HttpTarget router,
      @Nullable HttpTarget nginx) {
    this(prefill, decode, router, nginx, null);
  }

  /** One router (or none). */
  public Targets(List<HttpTarget> prefill, List<HttpTarget> decode, @Nullable HttpTarget router,
      @Nullable HttpTarget nginx, @Nullable HttpTarget nginxPrefill) {
    this(prefill, decode, router, nginx, nginxPrefill, List.of());
  }

  /** Where {@code arm} sends the streamed (decode) request. */
  public HttpTarget streamTarget(Arm arm, int roundRobin) {
    return switch (arm) {
      case DIRECT -> decode.get(Math.floorMod(roundRobin, decode.size()));
      // Several router replicas: the load is spread over them, request by request.
      case NARWHAL -> routers.isEmpty() ? require(router, "router") : routers.get(Math.floorMod(roundRobin, routers.size()));
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
