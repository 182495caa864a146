package io.flashstock.stock.admin;

import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

@Configuration(proxyBeanMethods = false)
class AdminWebConfiguration implements WebMvcConfigurer {

    private final AdminSettings settings;

    AdminWebConfiguration(AdminSettings settings) {
        this.settings = settings;
    }

    @Override
    public void addInterceptors(InterceptorRegistry registry) {
        registry.addInterceptor(new AdminAccess(settings)).addPathPatterns("/admin/**");
    }
}
