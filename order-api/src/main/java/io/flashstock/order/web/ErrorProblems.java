package io.flashstock.order.web;

import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The container's error page (errors raised outside Spring MVC, e.g. by a filter or by Tomcat itself),
 * answered as problem+json like every other error instead of Spring Boot's default JSON.
 */
@RestController
class ErrorProblems implements ErrorController {

    private static final int SERVER_ERROR = 500;

    @RequestMapping("${server.error.path:/error}")
    ResponseEntity<ProblemDetail> error(HttpServletRequest request) {
        int status = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE) instanceof Integer code
                ? code : SERVER_ERROR;
        ProblemType type = ProblemType.forStatus(status);
        ProblemDetail problem = Problems.detail(type, type == ProblemType.INTERNAL_ERROR
                ? "unexpected error; see the service log" : type.title());
        problem.setStatus(status);
        return Problems.answer(problem, new HttpHeaders());
    }
}
