import { messages } from './i18n';

export const t = messages({
  en: {
    title: 'Log in',
    username: 'Username',
    password: 'Password',
    code: 'Two-factor code',
    submit: 'Log in',
  },
  ru: {
    title: 'Вход',
    username: 'Имя пользователя',
    password: 'Пароль',
    code: 'Код двухфакторной аутентификации',
    submit: 'Войти',
  },
  fa: {
    title: 'ورود',
    username: 'نام کاربری',
    password: 'رمز عبور',
    code: 'کد تأیید دومرحله‌ای',
    submit: 'ورود',
  },
  zh: {
    title: '登录',
    username: '用户名',
    password: '密码',
    code: '两步验证码',
    submit: '登录',
  },
});
