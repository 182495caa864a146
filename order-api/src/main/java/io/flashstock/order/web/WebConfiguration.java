package io.flashstock.order.web;

import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

@Configuration(proxyBeanMethods = false)
class WebConfiguration implements WebMvcConfigurer {

    private final AdminSettings adminSettings;

    WebConfiguration(AdminSettings adminSettings) {
        this.adminSettings = adminSettings;
    }

    @Override
    public void addInterceptors(InterceptorRegistry registry) {
        registry.addInterceptor(new AdminAccess(adminSettings)).addPathPatterns("/admin/**");
    }
}
