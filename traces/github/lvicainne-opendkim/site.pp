class { '::opendkim':
  socket        => 'inet:8891@127.0.0.1',
  trusted_hosts => ['::1','127.0.0.1','localhost'],
  keys          => [
      {
          domain         => 'mydomain.com',
          selector       => 'default',
          publickey      => 'p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQDaP37ZzRmbpM7bOo55vgnDVMDNnc2kA0qCgwk2XhYFdPdeahG0Ned7nMySD9SKDLhPJvI9kyVgSTsEH4QgedkkB3o79o/U6jPfMOfChfEmDlZ+J6+YoA/Qj/8JddJWhc2zuSN4/JicYs4u/lGwo55F4lhbqwqPKOqlocV15SQ8nwIDAQAB',
          privatekey     => @(KEY),
            -----BEGIN PRIVATE KEY-----
            MIICdwIBADANBgkqhkiG9w0BAQEFAASCAmEwggJdAgEAAoGBANo/ftnNGZukzts6
            jnm+CcNUwM2dzaQDSoKDCTZeFgV0915qEbQ153uczJIP1IoMuE8m8j2TJWBJOwQf
            hCB52SQHejv2j9TqM98w58KF8SYOVn4nr5igD9CP/wl10laFzbO5I3j8mJxizi7+
            UbCjnkXiWFurCo8o6qWhxXXlJDyfAgMBAAECgYEAxVaIYnN7Zip9B+lIjnfw5/eo
            ZcL8AAMhyiSlnc0w6Do8udf6rhHXfwPmTWOW8ERUGu3CNz7nmspcXHwKwjqqxKaE
            eEBdc/fFhklV7/yummW5or8eT9B0VxgNeTetS6idOjuKn1IXDK72neatUcgNOSvU
            wsrs5GvZsdhylcZrkGECQQD+jzydqVhsgr7wmmzoUYF9corTfpPrP5BgaUCff2+t
            eHvA5Lzv/H5VdAfTfIPYfZ1rI3i42TBrDP2Of5eKo7ipAkEA23uoHvpSnYh9rrJd
            9Z8PLQBJy+wtkjEMdJVJWt7kkrTaaRUIh3IbAIqyzetneL9qiXJBSiJN7uyfZmGI
            kcawBwJAVAD6tOCcgHqI/idHx0aWX8p7y51avOgmAdrZ64iHVwyKcjZJrzx4iESZ
            DI5rh/a0CxYSkZWCp+EKj4rFfIfYuQJAd1kdiYLLK9iNp1Jcn3SXtvvCJT5PZYCA
            amDHW796gYAQiDWkxqo4nqnNIwZP5KwJzaWwdRSEVlibMPv2XHazPwJBALLprb4v
            Usqzl8Hw/UsYsT+lzetJXTtkiEkxbd1K37DQbt5OimTMxMxlkNwX+xOjugyKnsgR
            bSVA7L/tur537pU=
            -----END PRIVATE KEY-----
            | KEY
          signingdomains => ['*@mydomain.com', '*@subdomain.mydomain.com'],
      }
  ]
}
