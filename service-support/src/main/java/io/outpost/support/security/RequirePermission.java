package io.outpost.support.security;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Guards a resource method: the caller must present a valid bearer token holding any one of {@link #anyOf}
 * (wildcards honoured), and, with {@link #player()}, a token bound to a player. The verified token is then
 * available from the request-scoped {@link Caller}.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ ElementType.METHOD, ElementType.TYPE })
public @interface RequirePermission {

    String[] anyOf();

    /** The endpoint acts for the token's own player ({@code player_uuid} claim required). */
    boolean player() default false;
}
